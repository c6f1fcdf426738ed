/**
 * Several real localagents processes (the built binary: MCP servers over stdio,
 * and `localagents run` CLI processes) sharing one state directory and one
 * models.yaml against the simulator: they share the slots, keep one FIFO, and
 * each job has exactly one owner that the others can wait for and cancel through.
 * Jobs are one scripted turn each, so the real Claude Code binary stays cheap.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { runCli, startCli, type Started } from '../cli/cli-process.js';
import { processAlive, until } from '../helpers/processes.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { connect, makeDirs, ok, serverEnv, writeConfig, type Connected, type E2EDirs } from './harness.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';

interface DiskRecord {
  id: string;
  status: string;
  started_at?: string;
  finished_at?: string;
  owner_pid: number;
  claude_pid?: number;
  session_id?: string;
  error?: string;
}

const cleanups = cleanupsAfterEach();

async function setup(maxJobs: number, simSlots: number): Promise<{ dirs: E2EDirs; sim: Simulator }> {
  const dirs = makeDirs();
  const sim = await startSimulator({ flavor: 'llama.cpp', slots: simSlots });
  cleanups.push(() => sim.close());
  writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n    max_jobs: ${maxJobs}\n`);
  return { dirs, sim };
}

async function servers(dirs: E2EDirs, n: number, env: Record<string, string> = {}): Promise<Connected[]> {
  const list = await Promise.all(Array.from({ length: n }, () => connect(dirs, env)));
  cleanups.push(() => Promise.allSettled(list.map((s) => s.close())).then(() => undefined));
  return list;
}

function cliRun(dirs: E2EDirs, task: string, env: Record<string, string> = {}): Started {
  const run = startCli(['--config', dirs.config, 'run', '--no-follow', '--json', task], { cwd: dirs.repo, env: serverEnv(dirs, env), timeoutMs: 170_000 });
  cleanups.push(() => {
    run.child.kill('SIGKILL');
  });
  return run;
}

const record = (dirs: E2EDirs, id: string): DiskRecord => JSON.parse(readFileSync(join(dirs.state, 'jobs', id, 'job.json'), 'utf8')) as DiskRecord;

/** The error text of a tool result that must be an error. */
function errorText(result: CallToolResult): string {
  expect(result.isError).toBe(true);
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** wait_job until the job has finished (each call is capped at 110 s). */
async function finished(server: Connected, id: string): Promise<Record<string, unknown>> {
  for (;;) {
    const r = ok(await server.call('wait_job', { job_id: id, timeout_s: 110 }));
    if (r.status !== 'queued' && r.status !== 'running') return r;
  }
}

/** The most jobs whose [started_at, finished_at] overlap at one moment. */
function peakOverlap(records: DiskRecord[]): number {
  const edges = records.flatMap((r) => [
    { at: Date.parse(r.started_at!), d: 1 },
    { at: Date.parse(r.finished_at!), d: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.d - b.d); // an end before a start at the same instant
  let now = 0;
  let peak = 0;
  for (const e of edges) peak = Math.max(peak, (now += e.d));
  return peak;
}

describe('several localagents processes on one state directory', () => {
  it('3 servers × 3 jobs on 2 slots: never more than 2 at the backend, started in submit order', async () => {
    // The backend would take 4 at once: only localagents' shared accounting can keep it at 2.
    const { dirs, sim } = await setup(2, 4);
    sim.setScript(() => ({ text: 'done', delayMs: 300 }));
    const windows = await servers(dirs, 3);
    const ids: string[] = [];
    for (let i = 0; i < 9; i++) ids.push(String(ok(await windows[i % 3]!.call('run_agent', { wait_s: 0, task: `Job number ${i}.` })).id));

    const results = await Promise.all(ids.map((id, i) => finished(windows[i % 3]!, id)));
    expect(results.map((r) => r.status)).toEqual(ids.map(() => 'succeeded'));
    const records = ids.map((id) => record(dirs, id));
    expect(sim.stats.peakInFlight).toBeLessThanOrEqual(2);
    expect(peakOverlap(records)).toBeLessThanOrEqual(2);
    expect(new Set(records.map((r) => r.owner_pid)).size).toBe(3);
    // Submit order is start order: a later job never started before an earlier one
    // (allowing the few milliseconds between taking a lease and stamping started_at).
    const started = records.map((r) => Date.parse(r.started_at!));
    const inversions = started.flatMap((t, j) => started.slice(0, j).filter((earlier) => earlier > t + 250).map(() => j));
    expect(inversions).toEqual([]);
  }, 300_000);

  it('a `localagents run` owner SIGKILLed mid-job frees its slot for the next process at once; its job reads interrupted and its temp folders go', async () => {
    const { dirs, sim } = await setup(1, 4);
    sim.setScript((req) => (req.lastUserText.includes('HANG') ? { text: 'stuck', delayMs: 600_000 } : { text: 'done' }));
    // A temp directory of this test's own, to see the job's private folders (its settings, its sandbox's scratch).
    const tmp = { TMPDIR: mkdtempSync(join(tmpdir(), 'la-mp-')) };
    const run = cliRun(dirs, 'HANG here until killed.', tmp);
    await until(() => /job (\S+) started/.test(run.stderr()) && sim.stats.inFlight === 1, 60_000, 100);
    const runJob = /job (\S+) started/.exec(run.stderr())![1]!;
    const foldersOf = (pid: number | undefined): string[] => readdirSync(tmp.TMPDIR).filter((n) => n.startsWith('localagents-') && n.includes(`.${pid}@`)).map((n) => n.split('.')[0]!).sort();
    expect(foldersOf(run.child.pid)).toEqual(['localagents-job', 'localagents-settings']);
    const [window] = await servers(dirs, 1, tmp);
    const queued = ok(await window!.call('run_agent', { wait_s: 0, task: 'A job behind the killed one.' }));
    expect(queued).toMatchObject({ status: 'queued' });
    // Every edge shows the slots by holder and the queue across processes: list_models here, `localagents models` in a third process.
    const listedBefore = ok(await window!.call('list_models')) as { endpoints: { slot_use: unknown; queue: unknown[] }[] };
    expect(listedBefore.endpoints[0]).toMatchObject({
      slot_use: { capacity: 1, this_process: 0, other_processes: 1, other_clients: 0, free: 0 },
      queue: [{ position: 1, job_id: queued.id, this_process: true }],
    });
    const models = await runCli(['--config', dirs.config, 'models'], { cwd: dirs.repo, env: serverEnv(dirs) });
    expect(models.stdout).toContain('capacity 1 jobs: 0 this process, 1 other localagents processes, 0 other clients, 0 free');
    expect(models.stdout).toContain(`queue: #1 (default) (job ${String(queued.id)}, pid ${window!.transport.pid})`);

    run.child.kill('SIGKILL');
    await run.result;
    expect(foldersOf(run.child.pid)).toEqual(['localagents-job', 'localagents-settings']);
    // Anyone looking sees the lease gone at once.
    const listedAfter = ok(await window!.call('list_models')) as { endpoints: { slot_use: { other_processes: number } }[] };
    expect(listedAfter.endpoints[0]!.slot_use.other_processes).toBe(0);
    expect(ok(await window!.call('jobs', { job_id: runJob }))).toMatchObject({ status: 'interrupted' });
    // The queued job takes the slot at the server's next look (it polls every 2 s), not after a stale-lease timeout.
    expect(await until(() => record(dirs, String(queued.id)).status !== 'queued', 10_000, 50)).toBe(true);
    expect(await finished(window!, String(queued.id))).toMatchObject({ status: 'succeeded', result: 'done' });
    // The first job of the next process swept away the folders the killed one could not remove.
    expect(await until(() => foldersOf(run.child.pid).length === 0, 10_000, 50)).toBe(true);
  }, 200_000);

  it('wait_job, cancel_job and resume_job work on another process\'s job; a second session on one transcript is refused', async () => {
    const { dirs, sim } = await setup(4, 4);
    sim.setScript((req) => (req.lastUserText.includes('HANG') ? { text: 'stuck', delayMs: 600_000 } : { text: 'done' }));
    const [a, b] = await servers(dirs, 2);
    const job = String(ok(await a!.call('run_agent', { wait_s: 0, task: 'HANG until cancelled.' })).id);
    await until(() => sim.stats.inFlight === 1 && record(dirs, job).session_id !== undefined, 60_000, 100);

    // b waits on a's job, and says so in its progress: the wait does not end while the job runs.
    let saidWaiting!: () => void;
    const waiting = new Promise<void>((resolve) => (saidWaiting = resolve));
    const waitedOn = b!.client.callTool({ name: 'wait_job', arguments: { job_id: job } }, undefined, { timeout: 180_000, onprogress: () => saidWaiting() });
    await waiting;

    // b cancels a's job: a is asked through the state directory and stops it, and b's answer already says so.
    expect(ok(await b!.call('cancel_job', { job_id: job }))).toMatchObject({ status: 'cancelled' });
    // b's wait, still open until then, ends with the cancelled job.
    expect(ok((await waitedOn) as CallToolResult)).toMatchObject({ status: 'cancelled' });
    expect(record(dirs, job).status).toBe('cancelled');
    expect(await until(() => sim.stats.inFlight === 0, 10_000)).toBe(true);

    // Resume it in a; a second resume, from b or from a, is refused and names the job running the session.
    const resumed = String(ok(await a!.call('run_agent', { wait_s: 0, task: 'Continue: HANG again.', resume_job: job })).id);
    for (const server of [b!, a!]) {
      const text = errorText(await server.call('run_agent', { wait_s: 0, task: 'Continue too.', resume_job: job }));
      expect(text).toContain(`job ${resumed}`);
    }
    expect(errorText(await b!.call('run_agent', { wait_s: 0, task: 'Continue the resumed one.', resume_job: resumed }))).toContain(`job ${resumed} is still`);

    // Its owner dies: cancel_job from b finds it interrupted and ends the Claude Code it left behind.
    await until(() => record(dirs, resumed).claude_pid !== undefined && sim.stats.inFlight === 1, 60_000, 100);
    const claudePid = record(dirs, resumed).claude_pid!;
    process.kill(a!.transport.pid!, 'SIGKILL');
    expect(ok(await b!.call('cancel_job', { job_id: resumed }))).toMatchObject({ status: 'interrupted' });
    expect(await until(() => !processAlive(claudePid), 10_000)).toBe(true);
    expect(record(dirs, resumed).status).toBe('interrupted');
  }, 240_000);
});
