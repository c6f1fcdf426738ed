/**
 * Sixteen jobs at once on one endpoint, one of them losing its Claude Code
 * process to SIGKILL mid-request: the other fifteen finish, the crashed one is
 * `failed` with the exit reason, and nothing is left running.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../sim/index.js';
import { endpointYaml, ok, processAlive, processCommandLines, readRecord, startInProcess, until, type InProcess } from './in-process.js';

const JOBS = 16;
const CRASHING = 7;

describe(`${JOBS} jobs at once, one crashing`, () => {
  let sim: Simulator;
  let h: InProcess;

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, slots: JOBS });
    h = await startInProcess({ yaml: endpointYaml(sim.url, { extra: `    max_jobs: ${JOBS}` }) });
  });
  afterAll(async () => {
    await h?.close();
    await sim?.close();
  });

  it('the other jobs succeed; the crashed one fails with the exit reason', { timeout: 120_000 }, async () => {
    const number = (text: string): number => Number(/job number (\d+)\b/.exec(text)?.[1] ?? -1);
    sim.setScript((req) => {
      const n = number(req.lastUserText);
      return n === CRASHING ? { text: 'never sent', delayMs: 60_000 } : { text: `finished job number ${n}`, delayMs: 1000 };
    });
    const started = await Promise.all(Array.from({ length: JOBS }, (_, n) => h.call('run_agent', { wait_s: 0, task: `This is job number ${n}. Say finished.` })));
    const ids = started.map((r) => String(ok(r).id));
    expect(started.map((r) => ok(r).status)).toEqual(Array(JOBS).fill('running'));

    const crashingId = ids[CRASHING]!;
    const inFlight = (): boolean => sim.requests.some((r) => r.path === '/v1/messages' && r.endTime === undefined && number(r.bodyText) === CRASHING);
    expect(await until(inFlight, 60_000, 100)).toBe(true);
    const pid = readRecord(h.dirs, crashingId).claude_pid!;
    process.kill(pid, 'SIGKILL');

    const finished = await Promise.all(ids.map((id) => h.call('wait_job', { job_id: id, timeout_s: 100 }).then(ok)));
    for (const [n, record] of finished.entries()) {
      if (n === CRASHING) continue;
      expect(record).toMatchObject({ status: 'succeeded', result: `finished job number ${n}` });
    }
    expect(finished[CRASHING]).toMatchObject({ status: 'failed', error: 'Claude Code ended with an error: Claude Code process terminated by signal SIGKILL' });
    expect(processAlive(pid)).toBe(false);
    // No Claude Code process and no orphan guard of ours is left.
    const pids = finished.map((r) => Number((r as { claude_pid?: number }).claude_pid));
    expect(await until(() => pids.every((p) => !processAlive(p)), 5000)).toBe(true);
    expect(await until(() => ![...processCommandLines().values()].some((c) => pids.some((p) => c.endsWith(`localagents-orphan-guard ${p}`))), 5000)).toBe(true);
    expect(sim.stats.inFlight).toBe(0);
  });
});
