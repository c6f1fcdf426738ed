/**
 * A cross-process lock on a file path using only node:fs. The lock file names its
 * owner (PID + process start time, src/coord/process-identity.ts) and appears
 * whole: it is written under a temp name and hard-linked into place, and link
 * fails when the lock exists, so exactly one creator wins and nobody ever reads
 * an empty lock. A lock whose owner is dead (or whose PID was reused) is broken
 * at once; one with no readable owner only once its mtime is more than `staleMs`
 * away from now, in either direction (a clock that jumped leaves future mtimes).
 * Owns locking only; what runs under it is the caller's.
 */
import { link, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { ownedFileName, removeDeadOwnersFiles } from './owned-files.js';
import { formatIdentity, isAlive, parseIdentity, sameProcess, selfIdentity } from './process-identity.js';
import { LocalAgentsError, isErrno } from '../errors.js';
import { readRegularFile } from './regular-file.js';

export interface FileLockOptions {
  /** Give up after this long (default 30 s). */
  readonly timeoutMs?: number;
  /** A lock with no readable owner and an mtime this far from now is left over from a crash (default 15 s). */
  readonly staleMs?: number;
}

/** Per lock path, this process's calls: the last one waiting or holding, and when the current turn began. */
interface Line {
  tail: Promise<void>;
  /** performance.now(): a wall clock set forward must not make a turn look late. */
  turnBegan: number;
}
const lines = new Map<string, Line>();

/**
 * Runs `fn` while holding `lockPath`; the lock is released even when `fn` throws. Calls of one process take turns
 * in the order they came, and only the call whose turn it is tries the file: sixteen calls at once polling it
 * against one another let some wait past the timeout while the rest took turns. The time behind this process's own
 * calls is not another process's hold, so a long queue that moves waits on; a turn gets `timeoutMs` for the file
 * and as long again to hold it, and one that lasts longer (a filesystem that hangs under it) fails the calls
 * behind it instead of holding them for ever.
 */
export async function withFileLock<T>(lockPath: string, fn: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const line = lines.get(lockPath) ?? { tail: Promise.resolve(), turnBegan: performance.now() };
  lines.set(lockPath, line);
  const ahead = line.tail;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const mine = ahead.then(() => finished);
  line.tail = mine;
  try {
    await awaitTurn(lockPath, line, ahead, timeoutMs);
    line.turnBegan = performance.now();
    const ino = await acquire(lockPath, timeoutMs, options.staleMs ?? 15_000);
    try {
      // Under the lock, a temp or broken-lock file of a dead process is litter from a SIGKILL.
      await removeDeadOwnersFiles(lockPath, ['tmp', 'stale']);
      return await fn();
    } finally {
      await release(lockPath, ino);
    }
  } finally {
    done();
    if (line.tail === mine) lines.delete(lockPath);
  }
}

/**
 * Resolves when the calls ahead are done; throws once the current turn has lasted twice `timeoutMs`: its own
 * bound for the file (which fails that call, not these) and as long again for the hold.
 */
async function awaitTurn(lockPath: string, line: Line, ahead: Promise<void>, timeoutMs: number): Promise<void> {
  const turnBound = 2 * timeoutMs;
  for (;;) {
    const began = line.turnBegan;
    const stop = new AbortController();
    // `ahead` settles in a microtask when it already has, so it wins over even a timer of 0 ms.
    const late = sleep(Math.max(0, began + turnBound - performance.now()), 'late' as const, { signal: stop.signal });
    const outcome = await Promise.race([ahead.then(() => 'turn' as const), late]);
    stop.abort();
    if (outcome === 'turn') return;
    if (line.turnBegan === began) throw lockError(lockPath, `still locked after ${duration(turnBound)} by a call of this process that has not finished`);
  }
}

async function acquire(lockPath: string, timeoutMs: number, staleMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    const ino = await tryCreate(lockPath);
    if (ino !== undefined) return ino;
    const broken = await breakIfAbandoned(lockPath, staleMs);
    if (broken) continue;
    if (performance.now() > deadline) {
      throw lockError(lockPath, `still locked after ${duration(timeoutMs)} by ${await holderOf(lockPath)}`);
    }
    // Random back-off so many waiters do not retry in lock-step; grows a little, capped at 50 ms.
    await sleep(2 + Math.random() * Math.min(50, 5 + attempt * 2));
  }
}

/** Creates the lock file, owner inside; undefined when it already exists. */
async function tryCreate(lockPath: string): Promise<number | undefined> {
  const temp = ownedFileName(lockPath, 'tmp');
  try {
    await writeFile(temp, `${formatIdentity(selfIdentity)} ${new Date().toISOString()}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw lockError(lockPath, `cannot write lock file: ${String(err)}`, err);
  }
  try {
    await link(temp, lockPath);
    return (await stat(lockPath)).ino;
  } catch (err) {
    if (isErrno(err, 'EEXIST')) return undefined;
    throw lockError(lockPath, `cannot create lock file: ${String(err)}`, err);
  } finally {
    await unlink(temp).catch(() => undefined); // the lock, if we got it, is the other name of this file
  }
}

/** Why the lock may be taken over now, or undefined when its holder may still be working. */
async function abandonment(lockPath: string, staleMs: number): Promise<{ readonly ino: number } | undefined> {
  let text: string;
  let seen;
  try {
    seen = await stat(lockPath);
    text = (await readRegularFile(lockPath)).toString('utf8');
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return undefined; // released meanwhile; the next try takes it
    throw err;
  }
  const owner = parseIdentity(text);
  if (owner !== undefined) {
    if (sameProcess(owner, selfIdentity)) return undefined; // another call in this process holds it
    return isAlive(owner) ? undefined : { ino: seen.ino };
  }
  // No owner to ask (a lock written by an older version, or by hand): go by its age, either way from now.
  return Math.abs(Date.now() - seen.mtimeMs) > staleMs ? { ino: seen.ino } : undefined;
}

/**
 * Removes an abandoned lock. It is first renamed to a name of ours, so two breakers cannot both
 * delete; if what got renamed is not the file judged abandoned (its owner released it and another
 * process locked again in between), it is put back. Returns whether a lock was broken.
 */
async function breakIfAbandoned(lockPath: string, staleMs: number): Promise<boolean> {
  const abandoned = await abandonment(lockPath, staleMs);
  if (abandoned === undefined) return false;
  const grave = ownedFileName(lockPath, 'stale');
  try {
    await rename(lockPath, grave);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return true; // someone else broke it first
    throw lockError(lockPath, `cannot remove abandoned lock: ${String(err)}`, err);
  }
  const moved = await stat(grave).catch(() => undefined);
  if (moved !== undefined && moved.ino !== abandoned.ino) {
    // Best effort: EEXIST here means a third process already holds a new lock, which is fine.
    await link(grave, lockPath).catch(() => undefined);
  }
  await unlink(grave).catch(() => undefined); // if this fails, the next holder sweeps it (its owner, us, is checked)
  return true;
}

/** Who holds the lock, for the timeout message. */
async function holderOf(lockPath: string): Promise<string> {
  const text = await readRegularFile(lockPath).then((b) => b.toString('utf8'), () => '');
  const owner = parseIdentity(text);
  if (owner === undefined) return 'a process that did not sign the lock file';
  return sameProcess(owner, selfIdentity) ? 'this process' : `process ${owner.pid}, which is still running`;
}

async function release(lockPath: string, ino: number): Promise<void> {
  // Only remove our own lock: if it was broken and someone else locked since, the file is now theirs.
  const current = await stat(lockPath).catch(() => undefined);
  if (current?.ino === ino) await unlink(lockPath).catch(() => undefined); // already gone is fine
}

function duration(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}

function lockError(lockPath: string, message: string, cause?: unknown): LocalAgentsError {
  return new LocalAgentsError('state_unwritable', `${lockPath}: ${message}`, {
    hint: 'If no localagents process is running, delete the lock file and retry.',
    ...(cause === undefined ? {} : { cause }),
  });
}
