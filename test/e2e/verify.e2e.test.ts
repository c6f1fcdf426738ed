/**
 * A job with a verify command, through every real part: MCP Client over stdio → the built localagents → the real
 * Claude Code → the shim → the simulator (strict Qwen). The check runs at each Stop; its failure's output reaches the
 * model as a new request, the model fixes the code, and the record shows every attempt.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../sim/index.js';
import { gitOut } from '../helpers/git-repo.js';
import { toolError } from '../helpers/tool-error.js';
import { runCli } from '../cli/cli-process.js';
import { connect, makeDirs, ok, serverEnv, writeConfig, type Connected, type E2EDirs } from './harness.js';

interface Attempt {
  exit_code: number | null;
  duration_ms: number;
  output_tail: string;
  timed_out?: boolean;
  spent_after?: { turns: number; output_tokens: number };
}
interface Job {
  id: string;
  status: string;
  error?: string;
  verification?: { command: string; passed: boolean; sandboxed: boolean; max_attempts: number; attempts: Attempt[]; spent_after_failures?: { turns: number; output_tokens: number }; notes?: string[] };
}

const KEY = 'sk-verify-test-key-0123456789';
/** The committed check: calc.js must add. */
const CHECK = "const { add } = require('./calc.js'); const got = add(2, 3); if (got !== 5) { console.error(`expected 5, got ${got}`); process.exit(1); } console.log('ok');\n";

describe('verify: the job ends only when its check passes', { timeout: 180_000 }, () => {
  let dirs: E2EDirs;
  let sim: Simulator;
  let mcp: Connected;
  let fixedJob = '';
  const outside = (): string => join(dirs.root, 'outside');

  const run = async (args: Record<string, unknown>): Promise<Job> => {
    let job = ok(await mcp.call('run_agent', { wait_s: 100, ...args })) as unknown as Job;
    while (job.status === 'running' || job.status === 'queued') job = ok(await mcp.call('wait_job', { job_id: job.id, timeout_s: 100 })) as unknown as Job;
    return job;
  };
  const bodies = (): string[] => sim.requests.filter((r) => r.path === '/v1/messages').map((r) => r.bodyText);

  beforeAll(async () => {
    dirs = makeDirs();
    mkdirSync(outside());
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true });
    writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n    api_key: ${KEY}\ndefaults:\n  verify_timeout_s: 3\n`);
    writeFileSync(join(dirs.repo, 'check.js'), CHECK);
    gitOut(dirs.repo, 'add', '-A');
    gitOut(dirs.repo, 'commit', '-q', '-m', 'check');
    mcp = await connect(dirs);
  }, 60_000);

  afterAll(async () => {
    await mcp?.close();
    await sim?.close();
  });

  it('a model whose first code fails the check gets the failure, fixes it, and the job succeeds on attempt 2', async () => {
    const calc = join(dirs.repo, 'calc.js');
    sim.setScript((req) => {
      const seen = JSON.stringify(req.messages);
      if (req.assistantTurns === 0) return { toolUse: { name: 'Write', input: { file_path: calc, content: 'exports.add = (a, b) => a - b;\n' } } };
      if (seen.includes('expected 5, got -1') && !seen.includes('a + b')) return { text: 'The check says add subtracts; fixing.', toolUse: { name: 'Write', input: { file_path: calc, content: 'exports.add = (a, b) => a + b;\n' } } };
      return { text: 'Done.' };
    });
    const job = await run({ task: 'Write calc.js exporting add(a, b).', verify: 'node check.js' });
    expect(job.status, JSON.stringify(job)).toBe('succeeded');
    const v = job.verification;
    expect(v).toMatchObject({ command: 'node check.js', passed: true, sandboxed: true, max_attempts: 3 });
    expect(v?.attempts.map((a) => a.exit_code)).toEqual([1, 0]);
    expect(v?.attempts[0]?.output_tail).toContain('expected 5, got -1');
    expect(v?.attempts[1]?.output_tail).toContain('ok');
    // The failure's output reached the model as a new request, and the turns after it are counted.
    expect(bodies().some((b) => b.includes('expected 5, got -1'))).toBe(true);
    expect(v?.spent_after_failures?.turns).toBeGreaterThanOrEqual(1);
    expect(v?.attempts[0]?.spent_after?.output_tokens).toBeGreaterThan(0);
    const status = await mcp.call('jobs', { job_id: job.id });
    const text = (status.content as Array<{ text: string }>)[0]?.text ?? '';
    expect(text.split('\n')[1]).toMatch(/^verify `node check\.js`: passed on attempt 2 of 3/);
    expect(readFileSync(calc, 'utf8')).toContain('a + b');
    fixedJob = job.id;
  });

  it('a model that never fixes it ends failed after verify_attempts, with the last output (redacted) in its error', async () => {
    sim.setScript(() => ({ text: 'Done, I think.' }));
    const job = await run({ task: 'Make the check pass.', verify: `echo "still broken, key ${KEY}"; exit 3`, verify_attempts: 2 });
    expect(job.status).toBe('failed');
    expect(job.verification?.attempts.map((a) => a.exit_code)).toEqual([3, 3]);
    expect(job.error).toMatch(/verify command .* failed 2 times \(of 2 attempts; last: exit status 3\); last output: still broken, key \[redacted\]/);
    expect(JSON.stringify(job)).not.toContain(KEY);
    expect(bodies().join('\n')).not.toContain(KEY);
  });

  it('a check that hangs is cut at verify_timeout_s', async () => {
    sim.setScript(() => ({ text: 'Done.' }));
    const job = await run({ task: 'Nothing to do.', verify: 'echo waiting; sleep 60', verify_attempts: 1 });
    expect(job.status).toBe('failed');
    const a = job.verification?.attempts[0];
    expect(a).toMatchObject({ exit_code: null, timed_out: true });
    expect(a?.duration_ms).toBeGreaterThanOrEqual(2900);
    expect(a?.output_tail).toContain('waiting');
    expect(job.error).toContain('cut at its 3 s limit');
  });

  it('the check has no more power than Bash: it cannot write outside the tree nor see the shim URL', async () => {
    sim.setScript(() => ({ text: 'Done.' }));
    const escape = join(outside(), 'escaped.txt');
    const job = await run({ task: 'Nothing to do.', verify: `echo "url=[$ANTHROPIC_BASE_URL]"; echo x > ${escape}`, verify_attempts: 1 });
    expect(job.status).toBe('failed');
    expect(job.verification?.attempts[0]?.output_tail).toMatch(/url=\[\][\s\S]*Read-only file system/);
    expect(existsSync(escape)).toBe(false);
  });

  it('a repository whose settings disable hooks and add its own Stop hook does not change what runs', async () => {
    mkdirSync(join(dirs.repo, '.claude'), { recursive: true });
    const approve = `echo '{"decision":"approve"}'`;
    writeFileSync(join(dirs.repo, '.claude', 'settings.json'), JSON.stringify({ disableAllHooks: true, hooks: { Stop: [{ hooks: [{ type: 'command', command: approve }] }] } }));
    try {
      sim.setScript(() => ({ text: 'Done.' }));
      const job = await run({ task: 'Nothing to do.', verify: 'echo nope; exit 1', verify_attempts: 2 });
      expect(job.status).toBe('failed');
      // Both checks ran from the Stop hook (a dropped hook would show one check after the session, with a note).
      expect(job.verification?.attempts).toHaveLength(2);
      expect(job.verification?.notes ?? []).not.toContain(expect.stringContaining('never called the Stop hook'));
      expect(bodies().filter((b) => b.includes('check 1 of 2'))).not.toHaveLength(0);
    } finally {
      rmSync(join(dirs.repo, '.claude'), { recursive: true, force: true });
    }
  });

  it('localagents show leads with the check, and localagents usage totals the checks and the fixing they cost', async () => {
    const cli = async (...args: string[]): Promise<string> => {
      const r = await runCli(['--config', dirs.config, ...args], { cwd: dirs.repo, env: serverEnv(dirs), timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    };
    expect((await cli('show', fixedJob)).split('\n')[1]).toMatch(/^verify `node check\.js`: passed on attempt 2 of 3 \(fixing after failed checks took \d+ turns, \d+ tokens\)$/);
    expect(await cli('usage')).toMatch(/^verify: 5 jobs had a check, 1 passed it; fixing after failed checks took the local models [1-9]\d* turns and \S+ tokens/m);
  });

  it('a tool call cannot ask for more attempts than models.yaml allows', async () => {
    const err = toolError(await mcp.call('run_agent', { wait_s: 0, task: 'x', verify: 'true', verify_attempts: 6 }));
    expect(err.message).toMatch(/verify_attempts 6 is outside 1\.\.5 \(defaults\.max_verify_attempts/);
  });
});
