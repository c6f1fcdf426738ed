/**
 * The slot board as several processes see it: each board here speaks for one
 * owner (a real process: this one, or a child we can kill), all on one state dir.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processStartTime, selfIdentity, type ProcessIdentity } from '../../src/coord/process-identity.js';
import { createSlotBoard } from '../../src/coord/slot-board.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

function liveChild(): { child: ChildProcess; identity: ProcessIdentity } {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  children.push(child);
  return { child, identity: { pid: child.pid!, start: processStartTime(child.pid!) } };
}

const stateDir = (): string => mkdtempSync(join(tmpdir(), 'la-board-'));

describe('slot board', () => {
  it('keeps one FIFO per model across processes: a later job waits until the earlier one is placed', async () => {
    const dir = stateDir();
    const other = liveChild();
    const a = createSlotBoard(dir);
    const b = createSlotBoard(dir, { self: other.identity });
    await a.enqueue({ job: 'j1', model: 'qwen' });
    await b.enqueue({ job: 'j2', model: 'qwen' });
    await b.enqueue({ job: 'j3', model: 'gemma' });
    const view = await b.read();
    expect(view.aheadOf('j2', 'gpu')?.job).toBe('j1');
    expect(view.aheadOf('j3', 'gpu')).toBeUndefined(); // another model, and j1's candidates are not known yet
    expect([view.position('j1'), view.position('j2'), view.position('j3')]).toEqual([1, 2, 1]);

    // Once j1's owner says it could run on gpu, a later job of another model may not take a gpu slot first.
    await a.change((d) => d.setCandidates('j1', ['gpu']));
    expect((await b.read()).aheadOf('j3', 'gpu')?.job).toBe('j1');
    expect((await b.read()).aheadOf('j3', 'cpu')).toBeUndefined();

    await a.change((d) => d.lease('j1', 'gpu'));
    const after = await b.read();
    expect(after.aheadOf('j2', 'gpu')).toBeUndefined();
    expect(after.leasesOn('gpu')).toEqual({ thisProcess: 0, otherProcesses: 1 });
    expect((await a.read()).leasesOn('gpu')).toEqual({ thisProcess: 1, otherProcesses: 0 });
    // A process changes only its own tickets.
    await b.change((d) => d.lease('j1', 'cpu'));
    expect((await a.read()).ticket('j1')?.endpoint).toBe('gpu');
  });

  it('frees the leases of a killed owner the moment anyone looks, and drops them at the next write', async () => {
    const dir = stateDir();
    const doomed = liveChild();
    const dead = createSlotBoard(dir, { self: doomed.identity });
    await dead.enqueue({ job: 'k1', model: 'qwen' });
    await dead.change((d) => d.lease('k1', 'gpu'));
    await dead.enqueue({ job: 'k2', model: 'qwen' });
    const me = createSlotBoard(dir);
    expect((await me.read()).leasesOn('gpu').otherProcesses).toBe(1);

    doomed.child.kill('SIGKILL');
    await once(doomed.child, 'exit');
    const view = await me.read();
    expect(view.leasesOn('gpu').otherProcesses).toBe(0);
    expect(view.tickets).toEqual([]);
    await me.enqueue({ job: 'm1', model: 'qwen' });
    const onDisk = JSON.parse(readFileSync(me.file, 'utf8')) as { tickets: { job: string }[] };
    expect(onDisk.tickets.map((t) => t.job)).toEqual(['m1']);
  });

  it('reads a live PID with another start time (a reused PID) as a dead owner', async () => {
    const dir = stateDir();
    const impostor = createSlotBoard(dir, { self: { pid: process.pid, start: `${selfIdentity.start ?? ''}9` } });
    await impostor.enqueue({ job: 'r1', model: 'qwen' });
    await impostor.change((d) => d.lease('r1', 'gpu'));
    expect((await createSlotBoard(dir).read()).leasesOn('gpu')).toEqual({ thisProcess: 0, otherProcesses: 0 });
  });

  it('lets one job at a time run a session: a second claim names the job that holds it, until it is released', async () => {
    const dir = stateDir();
    const other = liveChild();
    const a = createSlotBoard(dir);
    const b = createSlotBoard(dir, { self: other.identity });
    expect(await a.enqueue({ job: 'resume-1', model: 'qwen', session: 's-1' })).toEqual({});
    expect(await b.enqueue({ job: 'resume-2', model: 'qwen', session: 's-1' })).toEqual({ sessionHeldBy: 'resume-1' });
    expect(await a.enqueue({ job: 'resume-3', model: 'qwen', session: 's-1' })).toEqual({ sessionHeldBy: 'resume-1' });
    expect((await a.read()).ticket('resume-2')).toBeUndefined(); // refused: nothing added
    await a.release('resume-1');
    expect(await b.enqueue({ job: 'resume-2', model: 'qwen', session: 's-1' })).toEqual({});
  });
});
