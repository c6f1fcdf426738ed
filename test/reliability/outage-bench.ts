/**
 * Running jobs for the server-outage cases (test/reliability/server-outage.test.ts, and the long ones in
 * test/real/long-outages.real.test.ts): each job runs Bash once and its second request is held by the simulator,
 * so a fault always meets a request in flight. The real Claude Code, the real shim, the simulator.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { startSimulator, type Simulator, type Turn } from '../sim/index.js';
import { endpointYaml, ok, readRecord, startInProcess, textOf, until, type InProcess } from './in-process.js';

const toolTurn: Turn = { toolUse: { name: 'Bash', input: { command: 'true', description: 'no-op' } } };
export const transcriptOf = (h: InProcess, id: string): string => readFileSync(join(h.dirs.state, 'jobs', id, 'transcript.txt'), 'utf8');

export interface Bench {
  sim: Simulator;
  readonly h: InProcess;
  readonly ids: string[];
  /** Second-turn requests that reached the simulator so far (each job's request that meets the outage). */
  secondTurns: number;
  /** Until set, a second turn is held by the simulator (a long prompt), so the fault always hits a request in flight. */
  released: boolean;
  close(): Promise<void>;
}

/** `jobs` jobs that each run Bash once, then answer; started, and each past its first answer. */
export async function jobsMidWay(jobs: number, opts: { slots?: number; outageWaitS?: number; queueGraceS?: number; queued?: number; tool?: Turn; timeoutS?: number } = {}): Promise<Bench> {
  const sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, slots: opts.slots ?? jobs });
  const keys = [opts.outageWaitS === undefined ? '' : `  outage_wait_s: ${opts.outageWaitS}`, opts.queueGraceS === undefined ? '' : `  queue_grace_s: ${opts.queueGraceS}`].filter((k) => k !== '');
  const defaults = keys.length === 0 ? undefined : keys.join('\n');
  // Claude Code's own retries capped at 2: an outage the shim did not hold would fail the job in seconds.
  const h = await startInProcess({ yaml: endpointYaml(sim.url, { retries: 2, defaults }) });
  const bench: Bench = {
    sim,
    h,
    ids: [],
    secondTurns: 0,
    released: false,
    async close() {
      await h.close();
      await bench.sim.close();
    },
  };
  sim.setScript((req) => {
    if (req.assistantTurns === 0) return opts.tool ?? toolTurn;
    if (bench.released) return { text: 'Done after the outage.' };
    bench.secondTurns++;
    return { text: 'never sent', delayMs: 600_000 };
  });
  for (let i = 0; i < jobs + (opts.queued ?? 0); i++) bench.ids.push(String(ok(await h.call('run_agent', { wait_s: 0, task: `Run true, then say done (${i}).`, timeout_s: opts.timeoutS ?? 600 })).id));
  return bench;
}

/** Once every running job's second request is in flight: the server dies under them (SIGKILL-like: connections dropped). */
export async function downUnderRequests(b: Bench, jobs: number): Promise<number> {
  expect(await until(() => b.secondTurns >= jobs, 90_000)).toBe(true);
  b.released = true;
  // No outage can begin before this moment; one taken after setDown resolves is later by however long closing took.
  const downAt = Date.now();
  await b.sim.setDown(true);
  return downAt;
}

/** Each job's final record (wait_job answers at its own cap, so it is asked again while the job runs). */
export async function waitAll(b: Bench, ids: readonly string[]): Promise<Array<Record<string, unknown>>> {
  return Promise.all(
    ids.map(async (id) => {
      for (;;) {
        const record = ok(await b.h.call('wait_job', { job_id: id, timeout_s: 60 }));
        if (record.status !== 'running' && record.status !== 'queued') return record;
      }
    }),
  );
}

/**
 * Paces an outage by the job's own record: resolves once the outage it is waiting out has lasted `ms` since it
 * began (the record's `outage_wait.since`), so a slow machine stretches the wait instead of shortening the outage.
 */
export async function outageLasted(b: Bench, id: string, ms: number): Promise<void> {
  const lasted = (): boolean => {
    const since = readRecord(b.h.dirs, id).outage_wait?.since;
    return since !== undefined && Date.now() - Date.parse(since) >= ms;
  };
  expect(await until(lasted, ms + 60_000, 100)).toBe(true);
}

/**
 * The server restarts into a model load of `loadMs` under one running job's request: the job waits it out, says the
 * server is loading while it does, and succeeds once the load ends; the loading server saw at most one of its
 * requests (then only probes), not Claude Code's retry storm. npm test runs it at seconds, test/real at minutes.
 */
export async function loadUnderJob(loadMs: number): Promise<void> {
  const b = await jobsMidWay(1);
  try {
    await downUnderRequests(b, 1);
    // Loading until the job has seen it, however slow the machine; then for what is left of `loadMs`.
    const began = Date.now();
    b.sim.setLoading(3_600_000);
    await b.sim.setDown(false);
    expect(await until(() => readRecord(b.h.dirs, b.ids[0]!).outage_wait?.saw === 'is loading its model', 120_000, 200)).toBe(true);
    const text = textOf(await b.h.call('jobs', { job_id: b.ids[0]! }));
    expect(text).toMatch(/waiting for the model server: gpu is loading its model, [0-9]+(\.[0-9])? s so far; waiting up to 10 min/);
    const left = Math.max(0, began + loadMs - Date.now());
    const loadedAt = Date.now() + left;
    b.sim.setLoading(left);
    const [record] = await waitAll(b, b.ids);
    expect(record).toMatchObject({ status: 'succeeded', result: 'Done after the outage.' });
    const outage = readRecord(b.h.dirs, b.ids[0]!).outages?.[0];
    expect(outage).toMatchObject({ outcome: 'served again' });
    expect(outage!.saw).toContain('is loading its model');
    // It ended when the load did, not before: the job was held through the whole load.
    expect(Date.parse(outage!.ended_at)).toBeGreaterThanOrEqual(loadedAt - 1000);
    const refused = b.sim.requests.filter((r) => r.path === '/v1/messages' && r.status === 503).length;
    expect(refused).toBeLessThanOrEqual(1);
    expect(ok(await b.h.call('jobs', { job_id: b.ids[0]! }))).toMatchObject({ status: 'succeeded' });
  } finally {
    await b.close();
  }
}
