/**
 * When the model server changes under running jobs (issue 26): it goes away and
 * comes back, loads its model for minutes, or comes back serving another model.
 * The real Claude Code, the real shim, the simulator (llama.cpp, strict Qwen
 * template). The long cases sleep concurrently, so the file takes about as long
 * as its longest case (~2.5 min), not their sum.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions, type Turn } from '../sim/index.js';
import { endpointYaml, ok, readRecord, startInProcess, textOf, until, type InProcess } from './in-process.js';

const toolTurn: Turn = { toolUse: { name: 'Bash', input: { command: 'true', description: 'no-op' } } };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const transcriptOf = (h: InProcess, id: string): string => readFileSync(join(h.dirs.state, 'jobs', id, 'transcript.txt'), 'utf8');

interface Bench {
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
async function jobsMidWay(jobs: number, opts: { slots?: number; outageWaitS?: number; queueGraceS?: number; queued?: number; tool?: Turn } = {}): Promise<Bench> {
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
  for (let i = 0; i < jobs + (opts.queued ?? 0); i++) bench.ids.push(String(ok(await h.call('run_agent', { wait_s: 0, task: `Run true, then say done (${i}).`, timeout_s: 600 })).id));
  return bench;
}

/** Once every running job's second request is in flight: the server dies under them (SIGKILL-like: connections dropped). */
async function downUnderRequests(b: Bench, jobs: number): Promise<void> {
  expect(await until(() => b.secondTurns >= jobs, 90_000)).toBe(true);
  b.released = true;
  await b.sim.setDown(true);
}

/** Each job's final record (wait_job answers at its own cap, so it is asked again while the job runs). */
async function waitAll(b: Bench, ids: readonly string[]): Promise<Array<Record<string, unknown>>> {
  return Promise.all(
    ids.map(async (id) => {
      for (;;) {
        const record = ok(await b.h.call('wait_job', { job_id: id, timeout_s: 60 }));
        if (record.status !== 'running' && record.status !== 'queued') return record;
      }
    }),
  );
}

describe.concurrent('the model server changes under running jobs', () => {
  it('gone for 5 s under 4 running jobs: all succeed, each record keeps the outage, and the queued fifth job keeps its place (past queue_grace_s)', async () => {
    // queue_grace_s 1: a queued job waits for its model as long as the running ones wait for their server, not just the grace.
    const b = await jobsMidWay(4, { queued: 1, queueGraceS: 1 });
    try {
      await downUnderRequests(b, 4);
      await sleep(1500);
      const queued = ok(await b.h.call('jobs', { job_id: b.ids[4]! }));
      expect(queued).toMatchObject({ status: 'queued', queue: { position: 1 } });
      const running = ok(await b.h.call('jobs', { job_id: b.ids[0]! }));
      expect(String((running.outage_wait as { saw?: string } | undefined)?.saw)).toMatch(/^is down \(host is up, nothing listens on 127\.0\.0\.1:\d+/);
      await sleep(3500);
      await b.sim.setDown(false);
      const records = await waitAll(b, b.ids);
      for (const r of records) expect(r).toMatchObject({ status: 'succeeded', result: 'Done after the outage.' });
      for (const id of b.ids.slice(0, 4)) {
        const outages = readRecord(b.h.dirs, id).outages ?? [];
        expect(outages).toHaveLength(1);
        expect(outages[0]).toMatchObject({ endpoint: 'gpu', outcome: 'served again' });
        const lasted = Date.parse(outages[0]!.ended_at) - Date.parse(outages[0]!.started_at);
        expect(lasted).toBeGreaterThan(3000);
        expect(lasted).toBeLessThan(12_000);
        expect(outages[0]!.saw[0]).toMatch(/^is down \(host is up, nothing listens on/);
        expect(transcriptOf(b.h, id)).toMatch(/waiting for the model server: gpu is down \(host is up, nothing listens on 127\.0\.0\.1:\d+ \(nothing started, or wrong port\)\), 0 s so far; waiting up to 10 min/);
      }
    } finally {
      await b.close();
    }
  }, 120_000);

  it('gone for 90 s under 4 running jobs: all succeed (past Claude Code\'s own retries), job_status says what it waits for', async () => {
    const b = await jobsMidWay(4);
    try {
      await downUnderRequests(b, 4);
      const downAt = Date.now();
      await sleep(70_000);
      const text = textOf(await b.h.call('jobs', { job_id: b.ids[0]! }));
      expect(text).toMatch(/waiting for the model server: gpu is down \(host is up, nothing listens on 127\.0\.0\.1:\d+ \(nothing started, or wrong port\)\), 1 min [0-9]+ s so far; waiting up to 10 min/);
      await sleep(Math.max(0, 90_000 - (Date.now() - downAt)));
      await b.sim.setDown(false);
      const records = await waitAll(b, b.ids);
      for (const r of records) expect(r).toMatchObject({ status: 'succeeded', result: 'Done after the outage.' });
      for (const id of b.ids) expect(readRecord(b.h.dirs, id).outages?.[0]).toMatchObject({ outcome: 'served again' });
    } finally {
      await b.close();
    }
  }, 240_000);

  it('gone for longer than defaults.outage_wait_s under 4 running jobs: all fail at the deadline, saying what the probes saw', async () => {
    const b = await jobsMidWay(4, { outageWaitS: 8 });
    try {
      await downUnderRequests(b, 4);
      const downAt = Date.now();
      const records = await waitAll(b, b.ids);
      const took = Date.now() - downAt;
      for (const r of records) {
        expect(r.status).toBe('failed');
        expect(String(r.error)).toMatch(/^The job's model server stopped serving its model .* The model server 'gpu' did not serve the job's model again within defaults\.outage_wait_s=8 s \(localagents held the job's requests since [^)]+\); it is down \(host is up, nothing listens on 127\.0\.0\.1:\d+/);
      }
      expect(took).toBeGreaterThan(7000);
      expect(took).toBeLessThan(40_000);
      for (const id of b.ids) expect(readRecord(b.h.dirs, id).outages?.[0]).toMatchObject({ outcome: 'deadline passed' });
    } finally {
      await b.close();
    }
  }, 120_000);

  it('"Loading model" (503) for 2 minutes mid-job: the job waits and succeeds, and says the server is loading', async () => {
    const b = await jobsMidWay(1);
    try {
      // The server restarts into a 2-minute load under the job's request.
      await downUnderRequests(b, 1);
      b.sim.setLoading(120_000);
      await b.sim.setDown(false);
      expect(await until(() => readRecord(b.h.dirs, b.ids[0]!).outage_wait !== undefined, 30_000, 200)).toBe(true);
      const text = textOf(await b.h.call('jobs', { job_id: b.ids[0]! }));
      expect(text).toMatch(/waiting for the model server: gpu is loading its model, [0-9]+ s so far; waiting up to 10 min/);
      const [record] = await waitAll(b, b.ids);
      expect(record).toMatchObject({ status: 'succeeded', result: 'Done after the outage.' });
      const outage = readRecord(b.h.dirs, b.ids[0]!).outages?.[0];
      expect(outage).toMatchObject({ outcome: 'served again' });
      expect(outage!.saw).toContain('is loading its model');
      expect(Date.parse(outage!.ended_at) - Date.parse(outage!.started_at)).toBeGreaterThan(110_000);
      // Held, not answered: the loading server saw at most one request of the job's (then only probes), not Claude Code's retry storm.
      const refused = b.sim.requests.filter((r) => r.path === '/v1/messages' && r.status === 503).length;
      expect(refused).toBeLessThanOrEqual(1);
    } finally {
      await b.close();
    }
  }, 240_000);

  const JOB_MODEL = 'unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL';
  /** What replaces the job's server on its port: another id, or llama-server restarted with another GGUF under the same --alias. */
  const swaps: Array<{ what: string; other: Partial<SimulatorOptions>; saw: string }> = [
    { what: 'another model', other: { modelId: 'someone/Other-Model-8B-GGUF:Q8_0' }, saw: `serves someone/Other-Model-8B-GGUF:Q8_0 now, not the job's model ${JOB_MODEL}` },
    {
      what: 'another model file under the same alias',
      other: { modelFile: '/models/Other-Model-8B-Q8_0.gguf' },
      saw: `serves ${JOB_MODEL} from /models/Other-Model-8B-Q8_0.gguf now, not the job's model ${JOB_MODEL} from /models/unsloth_Qwen3.8-27B-GGUF_UD-Q4_K_XL.gguf`,
    },
  ];

  for (const { what, other: swapped, saw } of swaps) {
    it(`${what} started on the port while the job runs a tool (no request fails): the job sends it nothing, and fails saying why`, async () => {
      // 5 s of Bash after the first answer: the server is swapped in the quiet between two requests.
      const b = await jobsMidWay(1, { outageWaitS: 8, tool: { toolUse: { name: 'Bash', input: { command: 'sleep 5', description: 'wait' } } } });
      let other: Simulator | undefined;
      try {
        expect(await until(() => b.sim.requests.some((r) => r.path === '/v1/messages' && r.status === 200), 90_000)).toBe(true);
        expect(readRecord(b.h.dirs, b.ids[0]!).model).toMatchObject({ served: JOB_MODEL, served_file: '/models/unsloth_Qwen3.8-27B-GGUF_UD-Q4_K_XL.gguf' });
        const port = b.sim.port;
        await b.sim.close();
        other = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, port, ...swapped });
        const [record] = await waitAll(b, b.ids);
        expect(b.secondTurns).toBe(0); // the swap came before the job's next request
        expect(record!.status).toBe('failed');
        expect(String(record!.error)).toContain(saw);
        expect(other.requests.filter((r) => r.path.startsWith('/v1/messages'))).toHaveLength(0);
        expect(readRecord(b.h.dirs, b.ids[0]!).outages?.[0]?.saw).toEqual([saw]);
      } finally {
        await b.h.close();
        await other?.close();
      }
    }, 120_000);

    it(`${what} started on the port mid-request: no request of the job reaches it, and the job fails saying why`, async () => {
      const b = await jobsMidWay(1, { outageWaitS: 10 });
      let other: Simulator | undefined;
      try {
        expect(await until(() => b.secondTurns >= 1, 90_000)).toBe(true);
        const port = b.sim.port;
        await b.sim.close();
        other = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, port, ...swapped });
        other.setScript([{ text: 'The wrong model answered.' }]);
        const [record] = await waitAll(b, b.ids);
        expect(record!.status).toBe('failed');
        expect(String(record!.error)).toContain(saw);
        expect(other.requests.filter((r) => r.path.startsWith('/v1/messages'))).toHaveLength(0);
        const outage = readRecord(b.h.dirs, b.ids[0]!).outages?.[0];
        expect(outage?.outcome).toBe('deadline passed');
        expect(outage?.saw).toContain(saw);
      } finally {
        await b.h.close();
        await other?.close();
      }
    }, 120_000);
  }
});
