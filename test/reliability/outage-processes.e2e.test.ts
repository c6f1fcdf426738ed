/**
 * A server outage seen by several localagents processes sharing one state
 * directory (issue 26, item 4): another process's queued job keeps its place
 * while a running job waits out the outage, and a localagents process killed
 * during the wait leaves a job that reads as interrupted and resumes once the
 * server is back. Real processes (the built binary over stdio), the real
 * Claude Code, the simulator.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator, type Turn } from '../sim/index.js';
import { connect, makeDirs, ok, writeConfig, type Connected, type E2EDirs } from '../e2e/harness.js';
import { until } from '../helpers/processes.js';

const toolTurn: Turn = { toolUse: { name: 'Bash', input: { command: 'true', description: 'no-op' } } };

interface JobFile {
  status: string;
  claude_pid?: number;
  outage_wait?: { saw: string; since: string };
  outages?: Array<{ outcome: string; saw: string[] }>;
}

const recordOf = (dirs: E2EDirs, id: string): JobFile => JSON.parse(readFileSync(join(dirs.state, 'jobs', id, 'job.json'), 'utf8')) as JobFile;
const textOf = (result: CallToolResult): string => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** A check on files another process writes: false while they are not there yet. */
const readable = (check: () => boolean) => (): boolean => {
  try {
    return check();
  } catch {
    return false; // not written yet
  }
};

/** One slot; each job runs Bash once, and its second request is held by the simulator until `released`. */
async function heldSecondTurns(): Promise<{ sim: Simulator; dirs: E2EDirs; state: { secondTurns: number; released: boolean } }> {
  const sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, slots: 1 });
  const dirs = makeDirs();
  // queue_grace_s 1: a queued job that did not keep its place would fail within seconds of the outage.
  writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n    env:\n      CLAUDE_CODE_MAX_RETRIES: "2"\ndefaults:\n  queue_grace_s: 1\n  outage_wait_s: 120\n`);
  const state = { secondTurns: 0, released: false };
  sim.setScript((req) => {
    if (req.assistantTurns === 0) return toolTurn;
    if (state.released) return { text: 'Done after the outage.' };
    state.secondTurns++;
    return { text: 'never sent', delayMs: 600_000 };
  });
  return { sim, dirs, state };
}

async function waitDone(server: Connected, id: string): Promise<Record<string, unknown>> {
  for (;;) {
    const record = ok(await server.call('wait_job', { job_id: id, timeout_s: 60 }));
    if (record.status !== 'running' && record.status !== 'queued') return record;
  }
}

describe('a server outage across localagents processes sharing one state directory', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve().then(c).catch(() => undefined);
  });

  it("another process's queued job keeps its place while the running job waits out the outage, then both succeed", async () => {
    const { sim, dirs, state } = await heldSecondTurns();
    cleanups.push(() => sim.close());
    const [a, b] = await Promise.all([connect(dirs), connect(dirs)]);
    cleanups.push(() => a.close(), () => b.close());

    const first = String(ok(await a.call('run_agent', { task: 'Run true, then say done (A).', timeout_s: 600 })).id);
    expect(await until(() => state.secondTurns >= 1, 90_000)).toBe(true);
    const second = ok(await b.call('run_agent', { task: 'Run true, then say done (B).', timeout_s: 600 }));
    expect(second).toMatchObject({ status: 'queued' });
    const secondId = String(second.id);

    state.released = true;
    await sim.setDown(true);
    // The outage lasts, by A's record, past queue_grace_s and two queue passes of process B (every 2 s).
    const lasted = (): boolean => {
      const since = recordOf(dirs, first).outage_wait?.since;
      return since !== undefined && Date.now() - Date.parse(since) >= 5000;
    };
    expect(await until(readable(lasted), 60_000)).toBe(true);
    expect(ok(await b.call('job_status', { job_id: secondId }))).toMatchObject({ status: 'queued', queue: { position: 1 } });
    const waiting = await a.call('job_status', { job_id: first });
    expect(ok(waiting)).toMatchObject({ status: 'running' });
    expect(textOf(waiting)).toMatch(/waiting for the model server: gpu is down/);
    expect(sim.requests.filter((r) => r.path === '/v1/messages').length).toBeGreaterThan(0);

    await sim.setDown(false);
    const [doneA, doneB] = await Promise.all([waitDone(a, first), waitDone(b, secondId)]);
    expect(doneA).toMatchObject({ status: 'succeeded', result: 'Done after the outage.' });
    expect(doneB).toMatchObject({ status: 'succeeded', result: 'Done after the outage.' });
    expect(recordOf(dirs, first).outages).toMatchObject([{ outcome: 'served again' }]);
    // One slot: the second job ran only after the first had ended.
    expect(sim.stats.peakInFlight).toBeLessThanOrEqual(1);
  }, 240_000);

  it('a localagents process killed while its job waits out the outage: the job reads as interrupted, and resumes once the server is back', async () => {
    const { sim, dirs, state } = await heldSecondTurns();
    cleanups.push(() => sim.close());
    const a = await connect(dirs);
    cleanups.push(() => a.close());
    const id = String(ok(await a.call('run_agent', { task: 'Run true, then say done.', timeout_s: 600 })).id);
    expect(await until(() => state.secondTurns >= 1, 90_000)).toBe(true);
    state.released = true;
    await sim.setDown(true);
    expect(await until(readable(() => recordOf(dirs, id).outage_wait !== undefined), 30_000)).toBe(true);

    const claudePid = recordOf(dirs, id).claude_pid;
    cleanups.push(() => {
      if (claudePid !== undefined) process.kill(-claudePid, 'SIGKILL'); // its session outlives the killed server
      return Promise.resolve();
    });
    process.kill(a.transport.pid!, 'SIGKILL');
    const again = await connect(dirs);
    cleanups.push(() => again.close());

    const seen = await again.call('job_status', { job_id: id });
    expect(ok(seen)).toMatchObject({ status: 'interrupted' });
    expect(textOf(seen)).not.toMatch(/waiting for the model server/);
    expect(textOf(seen)).toMatch(/resume_job/);
    expect(await until(readable(() => recordOf(dirs, id).status === 'interrupted'), 10_000)).toBe(true);
    expect(recordOf(dirs, id).outages?.at(-1)).toMatchObject({ outcome: 'job ended', saw: [expect.stringMatching(/^is down/) as string] });

    await sim.setDown(false);
    const resumed = String(ok(await again.call('run_agent', { task: 'Go on.', resume_job: id, timeout_s: 600 })).id);
    expect(await waitDone(again, resumed)).toMatchObject({ status: 'succeeded', result: 'Done after the outage.' });
  }, 240_000);
});
