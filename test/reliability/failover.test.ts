/**
 * A job's endpoint goes away for good while a second endpoint serves the same
 * model (issue 26 item 3): with defaults.failover: same_model the job moves there
 * once the outage passes failover_after_s and finishes, never putting more
 * requests on a backend than its slots; with failover off it waits and fails at
 * the deadline; and a second endpoint with a smaller window than the session was
 * told is no place to move to. Real Claude Code, the real shim, two simulators.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSimulator, type Simulator, type Turn } from '../sim/index.js';
import { ok, readRecord, requestLines, startInProcess, textOf, until, type InProcess } from './in-process.js';

const MODEL = 'unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL';
const toolTurn: Turn = { toolUse: { name: 'Bash', input: { command: 'true', description: 'no-op' } } };
const transcriptOf = (h: InProcess, id: string): string => readFileSync(join(h.dirs.state, 'jobs', id, 'transcript.txt'), 'utf8');
const messagesTo = (sim: Simulator): number => sim.requests.filter((r) => r.path === '/v1/messages').length;

interface Pair {
  readonly a: Simulator;
  readonly b: Simulator;
  readonly h: InProcess;
  readonly ids: string[];
  /** Second-turn requests that reached gpu-a (each job's request the outage cuts). */
  secondTurns: number;
  close(): Promise<void>;
}

/**
 * gpu-a and gpu-b serve the same model; `jobs` jobs run Bash once on gpu-a, and their second request is held
 * there (a long prompt) until gpu-a dies under it. gpu-b answers whatever reaches it.
 */
async function onGpuA(jobs: number, opts: { slotsA: number; slotsB: number; contextB?: number; defaults: string }): Promise<Pair> {
  const a = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, slots: opts.slotsA });
  const b = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, slots: opts.slotsB, ...(opts.contextB === undefined ? {} : { context: opts.contextB }) });
  // Claude Code's own retries capped at 2: an outage the shim did not hold would fail the job in seconds.
  const endpoint = (name: string, url: string): string => `  ${name}:\n    base_url: ${url}\n    env:\n      CLAUDE_CODE_MAX_RETRIES: "2"\n`;
  const yaml = `endpoints:\n${endpoint('gpu-a', a.url)}${endpoint('gpu-b', b.url)}defaults:\n${opts.defaults}\n`;
  const h = await startInProcess({ yaml });
  const pair: Pair = {
    a,
    b,
    h,
    ids: [],
    secondTurns: 0,
    async close() {
      await h.close();
      await Promise.all([a.close(), b.close()]);
    },
  };
  a.setScript((req) => {
    if (req.assistantTurns === 0) return toolTurn;
    pair.secondTurns++;
    return { text: 'never sent', delayMs: 600_000 };
  });
  // The first job to arrive keeps gpu-b's slot for 5 s, so a second job's try to move meets it there.
  let arrivals = 0;
  b.setScript(() => ({ text: 'Done on gpu-b.', ...(arrivals++ === 0 ? { delayMs: 5000 } : {}) }));
  for (let i = 0; i < jobs; i++) {
    const started = ok(await h.call('run_agent', { task: `Run true, then say done (${i}).`, timeout_s: 600 }));
    expect(started).toMatchObject({ status: 'running' });
    pair.ids.push(String(started.id));
  }
  for (const id of pair.ids) expect(readRecord(h.dirs, id).model.endpoint).toBe('gpu-a');
  return pair;
}

/** Once every job's second request is in flight on gpu-a: gpu-a dies under them and stays down. */
async function killA(p: Pair, jobs: number): Promise<void> {
  expect(await until(() => p.secondTurns >= jobs, 90_000)).toBe(true);
  await p.a.setDown(true);
}

async function waitAll(p: Pair): Promise<Array<Record<string, unknown>>> {
  return Promise.all(
    p.ids.map(async (id) => {
      for (;;) {
        const record = ok(await p.h.call('wait_job', { job_id: id, timeout_s: 60 }));
        if (record.status !== 'running' && record.status !== 'queued') return record;
      }
    }),
  );
}

describe.concurrent('a second endpoint serving the same model, the first killed mid-job', () => {
  it('failover on: both jobs move to gpu-b one after the other (one slot there) and finish; never more requests at a backend than its slots', async () => {
    const p = await onGpuA(2, { slotsA: 2, slotsB: 1, defaults: '  failover: same_model\n  failover_after_s: 3\n  outage_wait_s: 120' });
    try {
      await killA(p, 2);
      const records = await waitAll(p);
      for (const r of records) expect(r).toMatchObject({ status: 'succeeded', result: 'Done on gpu-b.' });
      // At no time more requests in flight at a backend than its slots: gpu-b took the second job only once the first left.
      expect(p.b.stats.peakInFlight).toBeLessThanOrEqual(1);
      expect(p.a.stats.peakInFlight).toBeLessThanOrEqual(2);
      const movedAt: number[] = [];
      for (const id of p.ids) {
        const record = readRecord(p.h.dirs, id);
        expect(record.model).toMatchObject({ endpoint: 'gpu-b', served: MODEL });
        expect(record.model.endpoint_reason).toMatch(/^moved from gpu-a \(defaults\.failover\): /);
        expect(record.moves).toHaveLength(1);
        const move = record.moves![0]!;
        expect(move).toMatchObject({ from: 'gpu-a', to: 'gpu-b', served: MODEL, context: 131072 });
        expect(move.reason).toMatch(/^gpu-a had not served the job's model for \d+(\.\d)? s \(it is down \(host is up, nothing listens on 127\.0\.0\.1:\d+/);
        expect(record.outages?.at(-1)).toMatchObject({ endpoint: 'gpu-a', outcome: 'moved' });
        // Not before failover_after_s (3 s) of the outage, by the record's own clock.
        expect(Date.parse(move.at) - Date.parse(record.outages!.at(-1)!.started_at)).toBeGreaterThanOrEqual(2999);
        expect(record.failover_blocked).toBeUndefined();
        movedAt.push(Date.parse(move.at));
        // The held request went to gpu-b, and requests.jsonl says so.
        const moved = requestLines(p.h.dirs, id).filter((l) => (l.rewrites as string[]).some((r) => /^held \d+ ms, then moved from gpu-a to gpu-b \(defaults\.failover\)$/.test(r)));
        expect(moved.length).toBeGreaterThanOrEqual(1);
        expect(moved.some((l) => l.status === 200)).toBe(true);
        expect(transcriptOf(p.h, id)).toMatch(/moved from gpu-a to gpu-b after gpu-a had not served the job's model for \d+(\.\d)? s/);
        expect(textOf(await p.h.call('job_status', { job_id: id }))).toMatch(/moved from gpu-a to gpu-b at \d\d:\d\d:\d\d after gpu-a had not served the job's model for \d+(\.\d)? s .*; gpu-b serves unsloth\/Qwen3\.8-27B-GGUF:UD-Q4_K_XL \(131072-token window\)/);
      }
      // The later of the two waited for gpu-b's one slot, and its transcript says so.
      const later = p.ids[movedAt[0]! > movedAt[1]! ? 0 : 1]!;
      expect(transcriptOf(p.h, later)).toMatch(/not moved to another endpoint: gpu-b has no free slot \(1 in all: 1 by this process\)/);
      expect(messagesTo(p.b)).toBeGreaterThanOrEqual(2);
    } finally {
      await p.close();
    }
  }, 180_000);

  it('failover off (the default): the job waits for gpu-a, never uses gpu-b, and fails at the deadline', async () => {
    const p = await onGpuA(1, { slotsA: 1, slotsB: 1, defaults: '  outage_wait_s: 8' });
    try {
      await killA(p, 1);
      const [record] = await waitAll(p);
      expect(record!.status).toBe('failed');
      expect(String(record!.error)).toMatch(/The model server 'gpu-a' did not serve the job's model again within defaults\.outage_wait_s=8 s .*; it is down \(host is up, nothing listens on/);
      expect(String(record!.error)).not.toContain('no other endpoint could take the job');
      const saved = readRecord(p.h.dirs, p.ids[0]!);
      expect(saved.moves).toBeUndefined();
      expect(saved.model.endpoint).toBe('gpu-a');
      expect(saved.outages?.[0]).toMatchObject({ endpoint: 'gpu-a', outcome: 'deadline passed' });
      expect(messagesTo(p.b)).toBe(0);
    } finally {
      await p.close();
    }
  }, 120_000);

  it('failover on, but gpu-b\'s window is smaller than the session was told: no move, and the job fails at the deadline saying why', async () => {
    const p = await onGpuA(1, { slotsA: 1, slotsB: 1, contextB: 32768, defaults: '  failover: same_model\n  failover_after_s: 2\n  outage_wait_s: 10' });
    try {
      await killA(p, 1);
      const why = `gpu-b serves ${MODEL} with a 32768-token window, smaller than the 131072 tokens the session was told`;
      expect(await until(() => readRecord(p.h.dirs, p.ids[0]!).failover_blocked !== undefined, 30_000, 200)).toBe(true);
      expect(textOf(await p.h.call('job_status', { job_id: p.ids[0]! }))).toContain(`not moved to another endpoint: ${why}`);
      const [record] = await waitAll(p);
      expect(record!.status).toBe('failed');
      expect(String(record!.error)).toContain(`did not serve the job's model again within defaults.outage_wait_s=10 s`);
      expect(String(record!.error)).toContain(`; no other endpoint could take the job: ${why}`);
      const saved = readRecord(p.h.dirs, p.ids[0]!);
      expect(saved.moves).toBeUndefined();
      expect(saved.failover_blocked).toBe(why);
      expect(messagesTo(p.b)).toBe(0);
    } finally {
      await p.close();
    }
  }, 120_000);
});
