/**
 * `localagents doctor` on the Claude Code it would use (defaults.claude_code_path): inside the tested range it says
 * so; outside it warns with the tested versions (src/jobs/claude/claude-code-range.ts), and an older release than the oldest
 * supported fails the check. The Claude Codes here are fakes that print a version as the real one does
 * ("2.1.332 (Claude Code)"); test/claude-versions/outside-range.e2e.test.ts does the same with a real old release.
 * The README states the same range.
 */
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPACTS_FROM, NEWEST_TESTED, OLDEST_SUPPORTED, TESTED_CLAUDE_CODE, testedRangeText } from '../../src/jobs/claude/claude-code-range.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { makeDirs, REPO_ROOT, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { runCli } from './cli-process.js';

describe('doctor: the Claude Code version against the tested range', { timeout: 60_000 }, () => {
  let dirs: E2EDirs;
  let sim: Simulator;

  const fakeClaude = (version: string): string => {
    const path = join(dirs.root, `claude-${version}`);
    writeFileSync(path, `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "${version} (Claude Code)"; exit 0; fi\nexit 1\n`);
    chmodSync(path, 0o755);
    return path;
  };
  const doctor = async (version: string): Promise<{ code: number | null; line: string; fixes: string[]; stdout: string }> => {
    // The sandbox is off here: doctor's sandbox proof runs a real job, which a fake `claude` that only prints its version cannot.
    writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\ndefaults:\n  claude_code_path: ${fakeClaude(version)}\n  sandbox:\n    enabled: false\n`);
    const result = await runCli(['--config', dirs.config, 'doctor'], { cwd: dirs.repo, env: serverEnv(dirs) });
    const lines = result.stdout.split('\n');
    const at = lines.findIndex((l) => / claude code: /.test(l));
    const fixes: string[] = [];
    for (let i = at + 1; i < lines.length && lines[i]?.startsWith('     fix: '); i++) fixes.push(lines[i]?.slice('     fix: '.length) ?? '');
    return { code: result.code, line: lines[at] ?? '', fixes, stdout: result.stdout };
  };

  beforeAll(async () => {
    dirs = makeDirs();
    sim = await startSimulator({ flavor: 'llama.cpp' });
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(dirs.root, { recursive: true, force: true });
    rmSync(dirs.repo, { recursive: true, force: true });
  });

  it('a tested release: ok, inside the tested range, nothing to fix', async () => {
    const result = await doctor(NEWEST_TESTED);
    expect(result.line).toMatch(new RegExp(`^ok {3}claude code: ${NEWEST_TESTED.replace(/\./g, '\\.')} \\(Claude Code\\) at .*defaults\\.claude_code_path in models\\.yaml\\), inside the tested range \\(${OLDEST_SUPPORTED} to ${NEWEST_TESTED}\\)$`));
    expect(result.fixes).toEqual([]);
    expect(result.code, result.stdout).toBe(0);
  });

  it('older than the oldest supported: the check fails, and says why, with the tested versions', async () => {
    const result = await doctor('1.0.100');
    expect(result.line).toMatch(/^FAIL claude code: 1\.0\.100 \(Claude Code\) at .*, outside the tested range/);
    expect(result.fixes.join('\n')).toContain('it refuses flags the Agent SDK passes (--setting-sources), so no job starts');
    expect(result.fixes.join('\n')).toContain(`tested: ${TESTED_CLAUDE_CODE.join(', ')}`);
    expect(result.code).toBe(1);
  });

  it('newer than the newest tested: ok, with a warning that names the tested versions', async () => {
    const result = await doctor('9.0.0');
    expect(result.line).toMatch(/^ok {3}claude code: 9\.0\.0 \(Claude Code\) at .*, outside the tested range/);
    expect(result.fixes).toEqual([expect.stringContaining(`Claude Code 9.0.0 is newer than the newest tested release; it probably works, but localagents is tested with ${testedRangeText()}`)]);
    expect(result.code, result.stdout).toBe(0);
  });

  it(`inside the range but before ${COMPACTS_FROM}: ok, warning that long jobs fail instead of compacting`, async () => {
    const result = await doctor('2.0.50');
    expect(result.line).toMatch(/^ok {3}claude code: 2\.0\.50 .*, inside the tested range/);
    expect(result.fixes.join('\n')).toContain(`does not compact when a conversation outgrows the model's window: a long job fails with "Prompt is too long" (from ${COMPACTS_FROM} it compacts`);
    expect(result.code, result.stdout).toBe(0);
  });

  it('the README states the same range', () => {
    expect(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')).toContain(testedRangeText());
  });
});
