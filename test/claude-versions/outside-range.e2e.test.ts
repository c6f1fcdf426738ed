/**
 * A real Claude Code older than the supported range (1.0.124, the newest release before 1.0.126): `doctor` fails its
 * check with the tested versions, and a job on it fails the way that warning says — the CLI refuses a flag the Agent
 * SDK passes. What the range's floor in src/jobs/claude/claude-code-range.ts rests on, shown on the real binary.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TESTED_CLAUDE_CODE } from '../../src/jobs/claude/claude-code-range.js';
import { runCli } from '../cli/cli-process.js';
import { connect, makeDirs, ok, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { ensureClaudeCode } from './fetch-claude-code.js';

const TOO_OLD = '1.0.124';

describe(`Claude Code ${TOO_OLD}, just below the supported range`, () => {
  let dirs: E2EDirs;
  let sim: Simulator;

  beforeAll(async () => {
    dirs = makeDirs();
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true });
    // The sandbox off: with it on, the job would be refused sooner, for its version (core.e2e tests that).
    writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\ndefaults:\n  claude_code_path: ${ensureClaudeCode(TOO_OLD)}\n  sandbox:\n    enabled: false\n`);
  }, 120_000);
  afterAll(async () => {
    await sim?.close();
  });

  it('doctor fails the claude code check and names the tested versions', async () => {
    const result = await runCli(['--config', dirs.config, 'doctor'], { cwd: dirs.repo, env: serverEnv(dirs), timeoutMs: 60_000 });
    expect(result.stdout).toMatch(new RegExp(`FAIL claude code: ${TOO_OLD.replace(/\./g, '\\.')} \\(Claude Code\\) at .*, outside the tested range`));
    expect(result.stdout).toContain(`tested: ${TESTED_CLAUDE_CODE.join(', ')}`);
    expect(result.code).toBe(1);
  });

  it("a job on it fails as doctor said: the CLI refuses the Agent SDK's --setting-sources", async () => {
    const mcp = await connect(dirs);
    try {
      const job = ok(await mcp.call('run_agent', { task: 'Say hello.', wait_s: 100 }));
      expect(job.status).toBe('failed');
      expect(String(job.error)).toContain("unknown option '--setting-sources");
      expect(sim.requests.filter((r) => r.path === '/v1/messages')).toHaveLength(0);
    } finally {
      await mcp.close();
    }
  });
});
