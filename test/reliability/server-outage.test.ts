/**
 * When the model server changes under running jobs (issue 26): it goes away and
 * comes back, loads its model for minutes, or comes back serving another model.
 * The real Claude Code, the real shim, the simulator (llama.cpp, strict Qwen
 * template). Outages here last seconds, paced by the jobs' own records; the ones that last minutes (past a
 * minute of held requests, a two-minute model load) are in test/real/long-outages.real.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '../sim/index.js';
import { ok, readRecord, until } from './in-process.js';
import { downUnderRequests, jobsMidWay, loadUnderJob, outageLasted, transcriptOf, waitAll } from './outage-bench.js';

describe.concurrent('the model server changes under running jobs', () => {
  it('gone for 5 s under 4 running jobs: all succeed, each record keeps the outage, and the queued fifth job keeps its place (past queue_grace_s)', async () => {
    // queue_grace_s 1: a queued job waits for its model as long as the running ones wait for their server, not just the grace.
    const b = await jobsMidWay(4, { queued: 1, queueGraceS: 1 });
    try {
      const downAt = await downUnderRequests(b, 4);
      await outageLasted(b, b.ids[0]!, 1500); // past queue_grace_s
      const queued = ok(await b.h.call('jobs', { job_id: b.ids[4]! }));
      expect(queued).toMatchObject({ status: 'queued', queue: { position: 1 } });
      const running = ok(await b.h.call('jobs', { job_id: b.ids[0]! }));
      expect(String((running.outage_wait as { saw?: string } | undefined)?.saw)).toMatch(/^is down \(host is up, nothing listens on 127\.0\.0\.1:\d+/);
      await outageLasted(b, b.ids[0]!, 5000);
      const upAt = Date.now();
      await b.sim.setDown(false);
      const records = await waitAll(b, b.ids);
      for (const r of records) expect(r).toMatchObject({ status: 'succeeded', result: 'Done after the outage.' });
      for (const id of b.ids.slice(0, 4)) {
        const outages = readRecord(b.h.dirs, id).outages ?? [];
        expect(outages).toHaveLength(1);
        expect(outages[0]).toMatchObject({ endpoint: 'gpu', outcome: 'served again' });
        // The record's outage is the one the test made: it began after the server went down and ended after it came back.
        expect(Date.parse(outages[0]!.started_at)).toBeGreaterThanOrEqual(downAt);
        expect(Date.parse(outages[0]!.ended_at)).toBeGreaterThanOrEqual(upAt);
        expect(outages[0]!.saw[0]).toMatch(/^is down \(host is up, nothing listens on/);
        expect(transcriptOf(b.h, id)).toMatch(/waiting for the model server: gpu is down \(host is up, nothing listens on 127\.0\.0\.1:\d+ \(nothing started, or wrong port\)\), \d+(\.\d)? s so far; waiting up to 10 min/);
      }
    } finally {
      await b.close();
    }
  }, 120_000);

  it('gone for longer than defaults.outage_wait_s under 4 running jobs: all fail at the deadline, saying what the probes saw', async () => {
    const b = await jobsMidWay(4, { outageWaitS: 8 });
    try {
      await downUnderRequests(b, 4);
      const records = await waitAll(b, b.ids);
      for (const r of records) {
        expect(r.status).toBe('failed');
        expect(String(r.error)).toMatch(/^The job's model server stopped serving its model .* The model server 'gpu' did not serve the job's model again within defaults\.outage_wait_s=8 s \(localagents held the job's requests since [^)]+\); it is down \(host is up, nothing listens on 127\.0\.0\.1:\d+/);
      }
      for (const id of b.ids) expect(readRecord(b.h.dirs, id).outages?.[0]).toMatchObject({ outcome: 'deadline passed' });
    } finally {
      await b.close();
    }
  }, 120_000);

  it('gone for good past the job\'s timeout_s (outage_wait_s is longer): the job ends timeout, saying it was waiting for gpu, which is down, and what to do', async () => {
    const b = await jobsMidWay(1, { timeoutS: 40 });
    try {
      // Down as soon as the job is placed: whichever of its requests comes first meets the outage, however slowly
      // this machine starts Claude Code, and the job waits it out until timeout_s.
      await b.sim.setDown(true);
      const [record] = await waitAll(b, b.ids);
      expect(record!.status).toBe('timeout');
      expect(String(record!.error)).toMatch(
        /stopped after timeout_s=40 s; for its last \d+(\.\d)? s it was waiting for its model server gpu, which is down \(host is up, nothing listens on 127\.0\.0\.1:\d+ \(nothing started, or wrong port\)\) and had not come back\. Start gpu again with the job's model \(localagents doctor shows what it answers\), then continue the job with run_agent resume_job/,
      );
      expect(transcriptOf(b.h, b.ids[0]!)).toContain('job timeout: stopped after timeout_s=40 s; for its last');
    } finally {
      await b.close();
    }
  }, 120_000);

  it('"Loading model" (503) mid-job: the job waits and succeeds, and says the server is loading (two minutes of it: test/real)', async () => {
    await loadUnderJob(15_000);
  }, 120_000);

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
