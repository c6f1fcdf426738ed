/**
 * A cross-process lock on a file path using only node:fs: the lock is a file
 * created with O_EXCL ('wx'), so exactly one creator wins. Others retry with a
 * short random back-off. A lock older than `staleMs` belongs to a process that
 * died mid-write and is broken. Owns locking only; what runs under it is the caller's.
 */
import { randomUUID } from 'node:crypto';
import { link, open, rename, stat, unlink } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { LocalAgentsError } from '../errors.js';
import { isErrno } from './locate.js';

export interface FileLockOptions {
  /** Give up after this long (default 30 s). Must exceed `staleMs`, or a stale lock is never broken. */
  readonly timeoutMs?: number;
  /** A lock file older than this is left over from a crash (default 15 s; a holder needs milliseconds). */
  readonly staleMs?: number;
}

/** Runs `fn` while holding `lockPath`; the lock is released even when `fn` throws. */
export async function withFileLock<T>(lockPath: string, fn: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const ino = await acquire(lockPath, options.timeoutMs ?? 30_000, options.staleMs ?? 15_000);
  try {
    return await fn();
  } finally {
    await release(lockPath, ino);
  }
}

async function acquire(lockPath: string, timeoutMs: number, staleMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    const ino = await tryCreate(lockPath);
    if (ino !== undefined) return ino;
    await breakIfStale(lockPath, staleMs);
    if (Date.now() > deadline) {
      const waited = timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`;
      throw lockError(lockPath, `still locked after ${waited}; another localagents process is writing it`);
    }
    // Random back-off so many waiters do not retry in lock-step; grows a little, capped at 50 ms.
    await sleep(2 + Math.random() * Math.min(50, 5 + attempt * 2));
  }
}

/** Creates the lock file; undefined when it already exists. */
async function tryCreate(lockPath: string): Promise<number | undefined> {
  let handle;
  try {
    handle = await open(lockPath, 'wx', 0o600);
  } catch (err) {
    if (isErrno(err, 'EEXIST')) return undefined;
    throw lockError(lockPath, `cannot create lock file: ${String(err)}`, err);
  }
  try {
    await handle.writeFile(`${process.pid} ${new Date().toISOString()}\n`);
    return (await handle.stat()).ino;
  } catch (err) {
    await unlink(lockPath).catch(() => undefined); // do not leave a lock nobody holds
    throw lockError(lockPath, `cannot write lock file: ${String(err)}`, err);
  } finally {
    await handle.close();
  }
}

/**
 * Removes a lock whose mtime is older than `staleMs`. It is first renamed to a
 * unique name, so two breakers cannot both delete; if what got renamed turns out
 * not to be the stale file (another process re-created the lock in between), it is put back.
 */
async function breakIfStale(lockPath: string, staleMs: number): Promise<void> {
  const seen = await statOrUndefined(lockPath);
  if (seen === undefined || Date.now() - seen.mtimeMs <= staleMs) return;
  const grave = `${lockPath}.${process.pid}.${randomUUID()}.stale`;
  try {
    await rename(lockPath, grave);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return; // someone else broke it first
    throw lockError(lockPath, `cannot remove stale lock: ${String(err)}`, err);
  }
  const moved = await statOrUndefined(grave);
  if (moved !== undefined && moved.ino !== seen.ino) {
    // Best effort: EEXIST here means a third process already holds a new lock, which is fine.
    await link(grave, lockPath).catch(() => undefined);
  }
  await unlink(grave).catch(() => undefined); // best effort: a leftover *.stale file harms nothing
}

async function release(lockPath: string, ino: number): Promise<void> {
  // Only remove our own lock: if we were so slow that it was broken as stale, the file is now someone else's.
  const current = await statOrUndefined(lockPath);
  if (current?.ino === ino) await unlink(lockPath).catch(() => undefined); // already gone is fine
}

async function statOrUndefined(path: string): Promise<{ ino: number; mtimeMs: number } | undefined> {
  try {
    return await stat(path);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return undefined;
    throw err;
  }
}

function lockError(lockPath: string, message: string, cause?: unknown): LocalAgentsError {
  return new LocalAgentsError('state_unwritable', `${lockPath}: ${message}`, {
    hint: 'If no localagents process is running, delete the lock file and retry.',
    ...(cause === undefined ? {} : { cause }),
  });
}
