/**
 * cancel_job while the session is inside a tool call (a long Bash command):
 * the job is `cancelled`, and Claude Code and every process it started are
 * gone on the cancel, long before the minute-long sleep would end. Checked
 * against /proc, not against our own bookkeeping.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../sim/index.js';
import { endpointYaml, ok, processAlive, processCommandLines, readRecord, startInProcess, until, type InProcess } from './in-process.js';

/** A command line no other process on the machine has. */
const SLEEP = `sleep 60.${process.pid}`;

function sleepers(): number[] {
  return [...processCommandLines()].filter(([, cmd]) => cmd.includes(SLEEP)).map(([pid]) => pid);
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('cancel_job during a tool call', () => {
  let sim: Simulator;
  let h: InProcess;

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true });
    h = await startInProcess({ yaml: endpointYaml(sim.url) });
  });
  afterAll(async () => {
    await h?.close();
    await sim?.close();
    for (const pid of sleepers()) process.kill(pid, 'SIGKILL'); // never leave one behind, even when the test fails
  });

  it('ends the job as cancelled; Claude Code, its shell and the minute-long sleep are gone on the cancel', async () => {
    // Claude Code refuses a command that starts with sleep ("Blocked: standalone sleep"), so it comes second.
    sim.setScript([{ toolUse: { name: 'Bash', input: { command: `echo waiting && ${SLEEP}`, description: 'Wait a minute', timeout: 120_000 } } }, { text: 'Slept.' }]);
    const started = ok(await h.call('run_agent', { task: 'Sleep for a minute.' }));
    const id = String(started.id);
    expect(await until(() => sleepers().length > 0, 30_000)).toBe(true);
    const claudePid = readRecord(h.dirs, id).claude_pid;
    expect(claudePid).toBeTypeOf('number');

    const cancelled = ok(await h.call('cancel_job', { job_id: id }));
    expect(cancelled).toMatchObject({ status: 'cancelled', error: 'cancelled on request' });
    // Gone on the cancel, not at the end of the minute-long sleep: waited for well inside that minute.
    expect(await until(() => sleepers().length === 0 && !processAlive(claudePid!) && !groupAlive(claudePid!), 30_000)).toBe(true);
    expect(readRecord(h.dirs, id).status).toBe('cancelled');
  });
});
