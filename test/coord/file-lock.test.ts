/**
 * The sidecar's cross-process lock: one holder at a time, released on error,
 * a lock left by a crashed process is broken, a live one makes waiters give up
 * with a message naming the lock file.
 */
import { readdir, unlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { withFileLock } from '../../src/coord/file-lock.js';
import { formatIdentity, selfIdentity } from '../../src/coord/process-identity.js';
import { LocalAgentsError } from '../../src/errors.js';
import { makeTempDir, type TempDir } from '../config/temp-dir.js';

let tmp: TempDir;
let lock: string;
beforeEach(async () => {
  tmp = await makeTempDir();
  lock = join(tmp.path, 'models.local.yaml.lock');
});
afterEach(() => tmp.remove());

/** A call that holds `lock` until end() is called; resolves once it holds it. */
async function holdUntilEnded(lockPath: string): Promise<{ end: () => void; ended: Promise<void> }> {
  let end: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (end = resolve));
  let began: () => void = () => undefined;
  const holding = new Promise<void>((resolve) => (began = resolve));
  const ended = withFileLock(lockPath, () => (began(), held));
  await holding;
  return { end, ended };
}

describe('withFileLock', () => {
  it('never lets two holders overlap', async () => {
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 10 }, () =>
        withFileLock(lock, async () => {
          inside++;
          most = Math.max(most, inside);
          await new Promise<void>((resolve) => setImmediate(resolve));
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
    expect(await readdir(tmp.path)).toEqual([]);
  });

  it('lets the calls of one process in one at a time in the order they came, however long their queue', async () => {
    // Twenty holds of 20 ms behind one another, each call allowed 200 ms for the lock file: the wait behind this
    // process's own calls is not another process's hold. Polling the file against one another, calls went in any
    // order and the later ones gave up.
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        withFileLock(
          lock,
          async () => {
            order.push(i);
            await new Promise<void>((resolve) => setTimeout(resolve, 20));
          },
          { timeoutMs: 200 },
        ),
      ),
    );
    expect(order).toEqual([...Array(20).keys()]);
    expect(await readdir(tmp.path)).toEqual([]);
  });

  it("gives up behind a call of its own process that holds the lock past timeoutMs, and the ones behind go in turn once it ends", async () => {
    // A hold that does not end (a filesystem that hangs under it): the calls behind it give its turn timeoutMs for
    // the file and as long again to hold it, not for ever; while turns keep coming, a long queue waits on (above).
    const stuck = await holdUntilEnded(lock);
    const behind = await Promise.allSettled([1, 2].map(() => withFileLock(lock, () => Promise.resolve('ran'), { timeoutMs: 100 })));
    expect(behind.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : r.value))).toEqual([
      `${lock}: still locked after 200 ms by a call of this process that has not finished`,
      `${lock}: still locked after 200 ms by a call of this process that has not finished`,
    ]);
    stuck.end();
    await stuck.ended;
    await expect(withFileLock(lock, () => Promise.resolve('after'), { timeoutMs: 100 })).resolves.toBe('after');
    expect(await readdir(tmp.path)).toEqual([]);
  });

  it('a wall clock set forward a day while a call holds the lock does not make the calls behind it give up', async () => {
    const first = await holdUntilEnded(lock);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 86_400_000);
      const behind = withFileLock(lock, () => Promise.resolve('ran'), { timeoutMs: 5_000 });
      await new Promise<void>((resolve) => setTimeout(resolve, 50)); // long enough for a turn judged late to fail it
      first.end();
      await first.ended;
      await expect(behind).resolves.toBe('ran');
    } finally {
      vi.useRealTimers();
    }
  });

  it('a wall clock set forward a day while a call waits for the lock file does not make it give up', async () => {
    // The file held under a live owner (this process, as another path's call might), so it is not broken.
    await writeFile(lock, `${formatIdentity(selfIdentity)} ${new Date().toISOString()}\n`);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const waiting = withFileLock(lock, () => Promise.resolve('ran'), { timeoutMs: 5_000 });
      await new Promise<void>((resolve) => setTimeout(resolve, 20)); // it has tried the file
      vi.setSystemTime(Date.now() + 86_400_000);
      await new Promise<void>((resolve) => setTimeout(resolve, 100)); // and tried again after the jump
      await unlink(lock);
      await expect(waiting).resolves.toBe('ran');
    } finally {
      vi.useRealTimers();
    }
  });

  it('releases the lock when the work throws', async () => {
    await expect(withFileLock(lock, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await readdir(tmp.path)).toEqual([]);
    await expect(withFileLock(lock, () => Promise.resolve('again'))).resolves.toBe('again');
  });

  it('breaks a lock left by a crashed process once it is older than staleMs', async () => {
    await writeFile(lock, '12345 crashed\n');
    const aMinuteAgo = new Date(Date.now() - 60_000);
    await utimes(lock, aMinuteAgo, aMinuteAgo);
    await expect(withFileLock(lock, () => Promise.resolve('ran'), { staleMs: 10_000, timeoutMs: 5_000 })).resolves.toBe('ran');
    expect(await readdir(tmp.path)).toEqual([]);
  });

  it('gives up on a live lock after timeoutMs, naming the lock file, and leaves it in place', async () => {
    await writeFile(lock, 'busy, written by hand\n'); // no owner to check, and fresh: someone may be writing
    const err = await withFileLock(lock, () => Promise.resolve('ran'), { staleMs: 60_000, timeoutMs: 100 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LocalAgentsError);
    expect((err as LocalAgentsError).code).toBe('state_unwritable');
    expect((err as LocalAgentsError).message).toBe(`${lock}: still locked after 100 ms by a process that did not sign the lock file`);
    expect(await readdir(tmp.path)).toEqual(['models.local.yaml.lock']);
  });
});
