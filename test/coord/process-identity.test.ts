import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { formatIdentity, isAlive, parseIdentity, processStartTime, selfIdentity } from '../../src/coord/process-identity.js';

describe('process identity', () => {
  it('knows this process is alive and reads its start time', () => {
    expect(selfIdentity.pid).toBe(process.pid);
    expect(selfIdentity.start).toMatch(/\S/);
    expect(isAlive(selfIdentity)).toBe(true);
  });

  it('reads a dead child as dead once it has exited', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const pid = child.pid!;
    const owner = { pid, start: processStartTime(pid) };
    expect(isAlive(owner)).toBe(true);
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(isAlive(owner)).toBe(false);
  });

  it('reads a live PID with another start time as a reused PID, so dead', () => {
    expect(isAlive({ pid: process.pid, start: `${selfIdentity.start ?? ''}1` })).toBe(false);
  });

  it('round-trips through its text form and refuses garbage', () => {
    expect(parseIdentity(formatIdentity(selfIdentity))).toEqual(selfIdentity);
    expect(parseIdentity('12 -')).toEqual({ pid: 12, start: undefined });
    expect(parseIdentity('not a pid')).toBeUndefined();
  });
});
