/**
 * The result comes to the caller: run_agent without wait arguments answers with the finished job, and while it
 * waits the official MCP Client receives progress notifications saying what the job does. wait_job waits for
 * several jobs at once; a caller that gives up on its request leaves the job running.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { endpointYaml, ok, startInProcess, until, type InProcess } from '../reliability/in-process.js';

const SANDBOX_OFF = '  sandbox:\n    enabled: false';

describe('waiting inside the tool call', { timeout: 120_000 }, () => {
  let sim: Simulator;
  let h: InProcess;

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp', slots: 2 });
    h = await startInProcess({ yaml: endpointYaml(sim.url, { defaults: SANDBOX_OFF }) });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await sim?.close();
  });

  it('run_agent answers with the finished record and reports progress meanwhile', async () => {
    sim.setScript([{ toolUse: { name: 'Bash', input: { command: 'echo one', description: 'Say one' } }, delayMs: 2500 }, { text: 'Ran echo one.', delayMs: 2500 }]);
    const progress: Progress[] = [];
    const result = (await h.client.callTool({ name: 'run_agent', arguments: { task: 'Run echo one.' } }, undefined, {
      timeout: 100_000,
      onprogress: (p) => progress.push(p),
    })) as CallToolResult;
    const record = ok(result);
    expect(record).toMatchObject({ status: 'succeeded', result: 'Ran echo one.', next_steps: expect.stringContaining('Review the work') as unknown });
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.map((p) => p.message).join('\n')).toContain(`${String(record.id)}: running`);
    // Each notification counts up, as MCP requires.
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
  });

  it('a list of briefs runs as parallel jobs and one answer brings both; wait_job takes a list', async () => {
    sim.setScript([{ text: 'half done', delayMs: 3000 }]);
    const started = ok(await h.call('run_agent', { task: ['Write the first half.', 'Write the second half.'], wait_s: 0 }));
    const ids = (started.jobs as Array<{ id: string }>).map((j) => j.id);
    expect(ids).toHaveLength(2);
    const done = ok(await h.call('wait_job', { job_id: ids }));
    const jobs = done.jobs as Array<{ id: string; status: string; started_at: string; finished_at: string }>;
    expect(jobs.map((j) => [j.id, j.status])).toEqual(ids.map((id) => [id, 'succeeded']));
    // They ran at the same time: each started before the other finished.
    expect(Date.parse(jobs[0]!.started_at)).toBeLessThan(Date.parse(jobs[1]!.finished_at));
    expect(Date.parse(jobs[1]!.started_at)).toBeLessThan(Date.parse(jobs[0]!.finished_at));
  });

  it('a caller that cancels its request stops waiting; the job runs on and wait_job brings it', async () => {
    sim.setScript([{ text: 'finished anyway', delayMs: 4000 }]);
    const abort = new AbortController();
    const pending = h.client.callTool({ name: 'run_agent', arguments: { task: 'Take a while.' } }, undefined, { signal: abort.signal, timeout: 100_000 });
    expect(await until(() => sim.requests.some((r) => r.path === '/v1/messages' && r.endTime === undefined), 60_000)).toBe(true);
    abort.abort();
    await expect(pending).rejects.toThrow();
    const done = ok(await h.call('wait_job', { job_id: 'last' }));
    expect(done).toMatchObject({ status: 'succeeded', result: 'finished anyway' });
  });
});
