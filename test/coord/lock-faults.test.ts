/**
 * Locks and temp files when their writer is gone: a lock file names its owner
 * (PID + start time), so one left by a dead process (or a reused PID) is broken
 * at once; one with no owner and an mtime in the future is broken too; a writer
 * SIGKILLed mid-write leaves nothing the next writer does not clean up, and that
 * writer does not stall. A symlinked models.local.yaml stays a symlink.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withFileLock } from '../../src/coord/file-lock.js';
import { loadConfig } from '../../src/config/load.js';
import { upsertSidecarEntry } from '../../src/config/sidecar.js';
import { formatIdentity, processStartTime, selfIdentity } from '../../src/coord/process-identity.js';
import { makeTempDir, type TempDir } from '../config/temp-dir.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHILD = fileURLToPath(new URL('../config/upsert-child.ts', import.meta.url));

let tmp: TempDir;
let lock: string;
beforeEach(async () => {
  tmp = await makeTempDir();
  lock = join(tmp.path, 'models.local.yaml.lock');
});
afterEach(() => tmp.remove());

/** The identity of a process that ran and is gone: what a SIGKILLed writer leaves in its lock. */
async function deadIdentity(): Promise<string> {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  const owner = { pid: child.pid!, start: processStartTime(child.pid!) };
  child.kill('SIGKILL');
  await once(child, 'exit');
  return formatIdentity(owner);
}

// staleMs is far above timeoutMs in these: before owners were checked, such a lock was waited on
// for staleMs (15 s by default; observed: a 14.8 s stall), so the call timed out.
const quick = { timeoutMs: 3000, staleMs: 60_000 };

describe('a lock whose writer is gone', () => {
  it('left by a dead process (fresh mtime): broken at once', async () => {
    await writeFile(lock, `${await deadIdentity()} 2026-12-01T04:00:00.000Z\n`);
    await expect(withFileLock(lock, () => Promise.resolve('ran'), quick)).resolves.toBe('ran');
    expect(await readdir(tmp.path)).toEqual([]);
  });

  it('naming a PID that now belongs to another process (reused PID): broken at once', async () => {
    await writeFile(lock, `${process.ppid} 1 2026-12-01T04:00:00.000Z\n`);
    await expect(withFileLock(lock, () => Promise.resolve('ran'), quick)).resolves.toBe('ran');
  });

  it('with no owner in it and an mtime an hour in the future: broken', async () => {
    await writeFile(lock, '');
    const future = new Date(Date.now() + 3_600_000);
    await utimes(lock, future, future);
    await expect(withFileLock(lock, () => Promise.resolve('ran'), { timeoutMs: 3000, staleMs: 1000 })).resolves.toBe('ran');
    expect(await readdir(tmp.path)).toEqual([]);
  });

  it('held by a live process, even with a future mtime: waited on, then a timeout naming the holder; left in place', async () => {
    const holder = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await writeFile(lock, `${formatIdentity({ pid: holder.pid!, start: processStartTime(holder.pid!) })} 2026-12-01T04:00:00.000Z\n`);
      const future = new Date(Date.now() + 3_600_000);
      await utimes(lock, future, future);
      await expect(withFileLock(lock, () => Promise.resolve('ran'), { timeoutMs: 200, staleMs: 10 })).rejects.toThrow(
        `${lock}: still locked after 200 ms by process ${holder.pid}, which is still running`,
      );
      expect(await readdir(tmp.path)).toEqual(['models.local.yaml.lock']);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('a lock file names its owner while held', async () => {
    const seen = await withFileLock(lock, () => readFile(lock, 'utf8'));
    expect(seen.startsWith(`${formatIdentity(selfIdentity)} `)).toBe(true);
  });
});

describe('a writer SIGKILLed in the middle of writing models.local.yaml', () => {
  it('leaves lock and temp files that the next writer removes, without waiting on them', async () => {
    const conf = join(tmp.path, 'conf');
    const sidecar = join(conf, 'models.local.yaml');
    await upsertSidecarEntry(sidecar, 'endpoints', 'mine', { base_url: 'http://127.0.0.1:8000' });
    let left: string[] = [];
    // Kill a writer the moment its temp file shows; a few tries, since the kill may land just after the rename.
    for (let attempt = 0; attempt < 20 && !left.some((n) => n.endsWith('.tmp')); attempt++) {
      const child = spawn(process.execPath, ['--import', 'tsx', CHILD, sidecar, `killed${attempt}`, 'forever'], { cwd: REPO_ROOT, stdio: 'ignore' });
      const end = Date.now() + 30_000;
      while (Date.now() < end && !readdirSync(conf).some((n) => n.endsWith('.tmp'))) await new Promise((r) => setImmediate(r));
      child.kill('SIGKILL');
      await once(child, 'exit');
      left = readdirSync(conf).filter((n) => n !== 'models.local.yaml');
    }
    expect(left.filter((n) => n.endsWith('.tmp')), `left behind: ${left.join(', ')}`).not.toEqual([]);
    // The next writer: no stall on the dead writer's lock (timeout far below the 15 s stale age), litter gone.
    await upsertSidecarEntry(sidecar, 'endpoints', 'after', { base_url: 'http://127.0.0.1:8001' }, { timeoutMs: 5000 });
    expect(await readdir(conf)).toEqual(['models.local.yaml']);
    const config = await loadConfig({ configPath: sidecar, cwd: tmp.path, homeDir: tmp.path, env: {} });
    expect(config.endpoints.map((e) => e.name)).toEqual(expect.arrayContaining(['mine', 'after']));
  });
});

describe('a symlinked models.local.yaml', () => {
  it('is written through to its target; the link stays a link', async () => {
    const dotfiles = join(tmp.path, 'dotfiles');
    const conf = join(tmp.path, 'conf');
    await mkdir(dotfiles);
    await mkdir(conf);
    const target = join(dotfiles, 'models.local.yaml');
    await writeFile(target, '# kept in my dotfiles\nendpoints: {}\n');
    const link = join(conf, 'models.local.yaml');
    await symlink(target, link);
    await upsertSidecarEntry(link, 'endpoints', 'gpu', { base_url: 'http://127.0.0.1:8080' });
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    const text = await readFile(target, 'utf8');
    expect(text).toContain('# kept in my dotfiles');
    expect(text).toContain('base_url: http://127.0.0.1:8080');
    expect((await readdir(conf)).sort()).toEqual(['models.local.yaml']);
    expect(await readdir(dotfiles)).toEqual(['models.local.yaml']);
  });

  it('pointing into a folder that does not exist: a clear error, nothing replaced', async () => {
    const link = join(tmp.path, 'models.local.yaml');
    const target = join(tmp.path, 'gone', 'models.local.yaml');
    await symlink(target, link);
    await expect(upsertSidecarEntry(link, 'endpoints', 'gpu', { base_url: 'http://127.0.0.1:8080' })).rejects.toThrow(
      `${link} is a symlink to ${target}, whose folder ${join(tmp.path, 'gone')} does not exist`,
    );
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
  });
});
