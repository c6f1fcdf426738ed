/**
 * Cancelling from another shell. A job runs inside the process that started
 * it: `localagents cancel` asks that process — a `localagents run` or an MCP
 * server — through the state directory's cancel inbox to cancel the job, and
 * it stops that one job cleanly (--force ends the job's Claude Code instead). Real Claude Code runs;
 * each job hangs on its second model request until stopped.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Script, type Simulator } from '../sim/index.js';
import { connect, makeDirs, ok, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { processAlive, waitFor } from '../helpers/processes.js';
import { jobIdIn, runCli, startCli, type CliOptions } from './cli-process.js';

const WRITE_THEN_HANG: Script = (req) =>
  req.assistantTurns === 0
    ? { toolUse: { name: 'Write', input: { file_path: 'part1.txt', content: 'one\n' } } }
    : { text: 'never', delayMs: 600_000 };

interface OnDisk {
  status: string;
  tool_calls: number;
  claude_pid?: number;
  owner_pid: number;
}

describe('localagents cancel', { timeout: 120_000 }, () => {
  let dirs: E2EDirs;
  let sim: Simulator;
  let opts: CliOptions;
  const cli = (...args: string[]): ReturnType<typeof runCli> => runCli(['--config', dirs.config, ...args], opts);
  const onDisk = (id: string): OnDisk => JSON.parse(readFileSync(join(dirs.state, 'jobs', id, 'job.json'), 'utf8')) as OnDisk;
  const hanging = (): boolean => sim.requests.some((r) => r.path === '/v1/messages' && r.endTime === undefined);

  beforeAll(async () => {
    dirs = makeDirs();
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, slots: 2 });
    sim.setScript(WRITE_THEN_HANG);
    writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
    opts = { cwd: dirs.repo, env: serverEnv(dirs) };
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(dirs.root, { recursive: true, force: true });
    rmSync(dirs.repo, { recursive: true, force: true });
  });

  it('a job of `localagents run`: cancel ends it cleanly, run exits 1 with the cancelled record, log -f stops with it', async () => {
    const run = startCli(['--config', dirs.config, 'run', '--json', 'Write part1.txt, then wait.'], opts);
    await waitFor(() => /job \S+ started/.test(run.stderr()), 60_000, 'the start line');
    const id = jobIdIn(run.stderr());
    await waitFor(() => onDisk(id).tool_calls >= 1 && hanging(), 60_000, 'the job to hang on its second request');

    const log = startCli(['--config', dirs.config, 'log', id, '-f'], opts);
    await waitFor(() => log.stdout().includes('tool: Write part1.txt'), 30_000, 'log -f to show the Write');

    const cancel = await cli('cancel', id);
    expect(cancel.code).toBe(0);
    expect(cancel.stderr).toBe(`asking localagents process ${run.child.pid ?? 0} to cancel job ${id}…\n`);
    expect(cancel.stdout).toContain(`job ${id}: cancelled after`);

    const ran = await run.result;
    expect(ran.code).toBe(1);
    expect(JSON.parse(ran.stdout)).toMatchObject({ id, status: 'cancelled', files_touched: ['part1.txt'] });
    const followed = await log.result;
    expect(followed.code).toBe(0);
    expect(followed.stdout.trim().split('\n').at(-1)).toMatch(/ job cancelled: /);
    expect(readFileSync(join(dirs.repo, 'part1.txt'), 'utf8')).toBe('one\n'); // work already written stays
  });

  it('a job of an MCP server: cancel asks the server, which cancels it; --force ends another job\'s Claude Code and the server records it failed', async () => {
    const mcp = await connect(dirs);
    try {
      const id = String(ok(await mcp.call('run_agent', { task: 'Write part1.txt, then wait.' })).id);
      const forcedId = String(ok(await mcp.call('run_agent', { task: 'Write part1.txt, then wait too.' })).id);
      const ready = (job: string): boolean => onDisk(job).claude_pid !== undefined && onDisk(job).tool_calls >= 1;
      await waitFor(() => ready(id) && ready(forcedId) && sim.requests.filter((r) => r.path === '/v1/messages' && r.endTime === undefined).length >= 2, 60_000, 'both jobs to hang');
      const { claude_pid: claudePid, owner_pid: owner } = onDisk(id);

      const cancelled = await cli('cancel', id);
      expect(cancelled.code).toBe(0);
      expect(cancelled.stderr).toContain(`asking localagents process ${owner} to cancel job ${id}`);
      expect(cancelled.stdout).toContain(`job ${id}: cancelled after`);
      expect(onDisk(id).status).toBe('cancelled');
      expect(processAlive(claudePid ?? 0)).toBe(false);
      expect(ok(await mcp.call('job_status', { job_id: id }))).toMatchObject({ status: 'cancelled' });

      const forcedPid = onDisk(forcedId).claude_pid;
      const forced = await cli('cancel', '--force', forcedId, '--json');
      expect(forced.code).toBe(0);
      const record = JSON.parse(forced.stdout) as { id: string; status: string; error: string };
      expect(record).toMatchObject({ id: forcedId, status: 'failed' });
      expect(record.error).toMatch(/^Claude Code ended with an error: /);
      expect(processAlive(forcedPid ?? 0)).toBe(false);
      // The server itself saw it end, and says so to its MCP client.
      expect(ok(await mcp.call('job_status', { job_id: forcedId }))).toMatchObject({ status: 'failed' });
    } finally {
      await mcp.close();
    }
  });
});
