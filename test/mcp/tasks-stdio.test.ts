/**
 * MCP 2026-07-28 with the tasks extension over stdio, against the built server with the real Claude Code
 * running the jobs on the simulator: run_agent comes back as a task at once, the task follows its job to
 * the end, tasks/cancel cancels the job (and the record says by whom), a task cut off by a restart reads
 * interrupted with how to resume, and the official 2025-11-25 client is served as before.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../sim/index.js';
import { connect, makeDirs, ok, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { until } from '../helpers/processes.js';
import { modernStdio, TASKS, type ModernClient, type RpcAnswer } from './tasks-client.js';

let dirs: E2EDirs;
let sim: Simulator;
let release: () => void = () => undefined;
/** Model requests the simulator is holding for release(). */
let held = 0;
const clients: ModernClient[] = [];

beforeAll(async () => {
  dirs = makeDirs();
  sim = await startSimulator({ flavor: 'llama.cpp', slots: 4 });
  writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
});
afterAll(async () => {
  await sim?.close();
});
afterEach(async () => {
  release();
  for (const c of clients.splice(0)) await c.close();
});

/** Every job's model answer waits for release(): the job stays running until the test lets it go. */
function holdJobs(answer: string): void {
  const gate = new Promise<void>((resolve) => (release = resolve));
  held = 0;
  sim.setScript(async () => {
    held++;
    await gate;
    return { text: answer };
  });
}

function client(): ModernClient {
  const c = modernStdio(dirs);
  clients.push(c);
  return c;
}

const record = (jobId: string): { status: string; error?: string } => JSON.parse(readFileSync(join(dirs.state, 'jobs', jobId, 'job.json'), 'utf8')) as { status: string; error?: string };
const jobOf = (taskId: unknown): string => String(taskId).split('.')[0]!;

async function pollUntilTerminal(c: ModernClient, taskId: unknown): Promise<RpcAnswer> {
  let last: RpcAnswer = {};
  await until(async () => {
    last = await c.request('tasks/get', { taskId });
    return !['working', 'input_required'].includes(String(last.result?.status));
  }, 120_000, 200);
  return last;
}

describe('MCP tasks over stdio (2026-07-28)', () => {
  it('announces the tasks extension in server/discover and answers tools/list in the new shape', async () => {
    const c = client();
    const discovered = await c.request('server/discover');
    expect(discovered.result).toMatchObject({ resultType: 'complete', supportedVersions: ['2026-07-28', '2025-11-25'], capabilities: { extensions: { [TASKS]: {} } } });
    expect(String(discovered.result?.instructions)).toContain('run_agent');
    const listed = await c.request('tools/list');
    expect(listed.result?.resultType).toBe('complete');
    expect((listed.result?.tools as Array<{ name: string }>).map((t) => t.name)).toContain('run_agent');
  });

  it('answers run_agent with a task at once; tasks/get says working while the job runs and completed with the finished record', async () => {
    holdJobs('Job done.');
    const c = client();
    const created = await c.request('tools/call', { name: 'run_agent', arguments: { task: 'Say done.' } });
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working', ttlMs: null });
    expect(created.result?.pollIntervalMs).toBeGreaterThan(0);
    const taskId = created.result?.taskId;
    const jobId = jobOf(taskId);
    expect(['queued', 'running']).toContain(record(jobId).status);
    expect((await c.request('tasks/get', { taskId })).result).toMatchObject({ resultType: 'complete', taskId, status: 'working' });

    release();
    const done = await pollUntilTerminal(c, taskId);
    expect(done.result).toMatchObject({ status: 'completed', taskId });
    const result = done.result?.result as { structuredContent: Record<string, unknown>; content: Array<{ text: string }> };
    expect(result.structuredContent).toMatchObject({ id: jobId, status: 'succeeded', result: 'Job done.' });
    expect(record(jobId).status).toBe('succeeded');
  }, 150_000);

  it('gives a plain result to a request that does not declare the extension, refuses tasks/get from it, and makes wait_job a task', async () => {
    holdJobs('Plain.');
    const c = client();
    const started = await c.request('tools/call', { name: 'run_agent', arguments: { task: 'Say plain.' } }, { tasks: false });
    expect(started.result).toMatchObject({ resultType: 'complete' });
    expect(started.result).not.toHaveProperty('taskId');
    const refused = await c.request('tasks/get', { taskId: 'x' }, { tasks: false });
    expect(refused.error?.code).toBe(-32021);

    // wait_job on that running job, from a request that declares tasks: a task, to the job's end.
    const jobId = String((started.result?.structuredContent as { id: string }).id);
    const waited = await c.request('tools/call', { name: 'wait_job', arguments: { job_id: jobId } });
    expect(waited.result).toMatchObject({ resultType: 'task', status: 'working' });
    expect(jobOf(waited.result?.taskId)).toBe(jobId);
    release();
    const done = await pollUntilTerminal(c, waited.result?.taskId);
    expect((done.result?.result as { structuredContent: unknown }).structuredContent).toMatchObject({ id: jobId, status: 'succeeded', result: 'Plain.' });
  }, 120_000);

  it('cancels the job on tasks/cancel (TaskStop); the record says the caller\'s TaskStop did it', async () => {
    holdJobs('never');
    const c = client();
    const taskId = (await c.request('tools/call', { name: 'run_agent', arguments: { task: 'Wait forever.' } })).result?.taskId;
    const jobId = jobOf(taskId);
    expect(await until(() => record(jobId).status === 'running' && held > 0, 60_000, 100)).toBe(true);
    expect((await c.request('tasks/cancel', { taskId })).result).toEqual({ resultType: 'complete' });
    expect(await until(() => record(jobId).status === 'cancelled', 30_000, 100)).toBe(true);
    expect(record(jobId).error).toContain("the caller's TaskStop");
    expect((await c.request('tasks/get', { taskId })).result).toMatchObject({ status: 'cancelled' });
  }, 120_000);

  it('after a restart, the cut-off job\'s task reads interrupted and says how to resume, never unknown', async () => {
    holdJobs('never');
    const first = client();
    const taskId = (await first.request('tools/call', { name: 'run_agent', arguments: { task: 'Run until killed.' } })).result?.taskId;
    const jobId = jobOf(taskId);
    expect(await until(() => record(jobId).status === 'running' && held > 0, 60_000, 100)).toBe(true);
    process.kill(first.pid!, 'SIGKILL');

    const second = client();
    const after = await second.request('tasks/get', { taskId });
    expect(after.result).toMatchObject({ status: 'completed', taskId });
    expect(String(after.result?.statusMessage)).toContain('interrupted');
    expect(String(after.result?.statusMessage)).toContain(`run_agent(resume_job="${jobId}")`);
    const result = after.result?.result as { structuredContent: Record<string, unknown> };
    expect(result.structuredContent).toMatchObject({ id: jobId, status: 'interrupted' });
  }, 120_000);

  it('refuses task ids it did not hand out: a job id, a forged mac, a forged nonce, a number', async () => {
    holdJobs('Fine.');
    const c = client();
    const taskId = String((await c.request('tools/call', { name: 'run_agent', arguments: { task: 'Say fine.' } })).result?.taskId);
    const [jobId, nonce] = taskId.split('.');
    for (const forged of [jobId, `${jobId}.${nonce}.${'0'.repeat(64)}`, `${jobId}.${'1'.repeat(32)}.${taskId.split('.')[2]}`, 42]) {
      const answer = await c.request('tasks/get', { taskId: forged });
      expect(answer.error, String(forged)).toMatchObject({ code: -32602, message: 'Failed to retrieve task: Task not found' });
      expect((await c.request('tasks/cancel', { taskId: forged })).error?.code).toBe(-32602);
    }
    expect(record(String(jobId)).status).not.toBe('cancelled');
  }, 60_000);

  it('still serves the official 2025-11-25 client (initialize, then blocking tools) on the same binary', async () => {
    holdJobs('Legacy done.');
    release();
    const legacy = await connect(dirs);
    try {
      const started = ok(await legacy.call('run_agent', { task: 'Say legacy.', wait_s: 60 }));
      expect(started).toMatchObject({ status: 'succeeded', result: 'Legacy done.' });
    } finally {
      await legacy.close();
    }
  }, 120_000);
});
