/**
 * Files that hold a secret or a record are the owner's alone: 0600 in a 0700
 * folder, whatever the umask and whatever was there before (a restored backup,
 * an older version, a folder made by hand). A mode given to open() or mkdir()
 * only applies to what they create, so each helper here also sets it on what
 * already exists.
 */
import { constants, createWriteStream, fchmodSync, type WriteStream } from 'node:fs';
import { chmod, mkdir, open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ownedFileName } from './owned-files.js';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** `dir` (and any missing parent) made, and `dir` itself narrowed to 0700. */
export async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await chmod(dir, PRIVATE_DIR_MODE);
}

/** Temp files of `path` are hidden siblings: `.<name>.<owner>.<uuid>.tmp`, so a sweep can find a dead writer's. */
export const privateTempPrefix = (path: string): string => join(dirname(path), `.${basename(path)}`);

/**
 * Replaces `path` with `text` through a fresh 0600 temp file and a rename: readers see old or new, never half,
 * and a process that had the old (maybe looser) file open cannot read the new text through it.
 */
export async function writePrivateFile(path: string, text: string | Uint8Array): Promise<void> {
  const tmp = ownedFileName(privateTempPrefix(path), 'tmp');
  try {
    const handle = await open(tmp, 'wx', PRIVATE_FILE_MODE);
    try {
      await handle.chmod(PRIVATE_FILE_MODE); // a umask cannot widen it, but an inherited ACL default can
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined); // the temp file may not exist; the original error is what matters
    throw err;
  }
}

/** An append stream on `path`, narrowed to 0600 as soon as it is open (before anything is written), even if the file was there. */
export function privateAppendStream(path: string): WriteStream {
  const stream = createWriteStream(path, { flags: 'a', mode: PRIVATE_FILE_MODE });
  stream.once('open', (fd: number) => {
    try {
      fchmodSync(fd, PRIVATE_FILE_MODE);
    } catch (err) {
      stream.destroy(err as Error); // a file we cannot make private gets nothing written; the caller's error handler says why
    }
  });
  return stream;
}

/** The mode of `path` when users other than its owner may read, write or enter it; undefined when private or absent. */
export async function looseMode(path: string): Promise<number | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (info === undefined) return undefined;
  const mode = info.mode & 0o777;
  return (mode & 0o077) === 0 ? undefined : mode;
}

const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** An append handle on `path` if it is (or is created as) a regular file; undefined when something else is there. */
async function openForAppend(path: string): Promise<FileHandle | undefined> {
  let handle;
  try {
    handle = await open(path, APPEND_FLAGS, PRIVATE_FILE_MODE);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // A link (ELOOP), a FIFO without a reader (ENXIO), a folder.
    if (code === 'ELOOP' || code === 'ENXIO' || code === 'EISDIR') return undefined;
    if (code !== 'ENOENT') throw err;
    await privateDir(dirname(path));
    handle = await open(path, APPEND_FLAGS, PRIVATE_FILE_MODE);
  }
  if ((await handle.stat()).isFile()) return handle;
  await handle.close();
  return undefined;
}

/**
 * Appends `line` (its newline included) to the 0600 file at `path` in one write, so the lines of several
 * processes never interleave. Never through a link, never blocking on a FIFO: what stands there instead of a
 * regular file is replaced by an empty one (for files that are ours to rebuild).
 */
export async function appendPrivateLine(path: string, line: string): Promise<void> {
  let handle = await openForAppend(path);
  if (handle === undefined) {
    await writePrivateFile(path, '');
    handle = await openForAppend(path);
    if (handle === undefined) throw Object.assign(new Error(`${path} is not a regular file`), { code: 'EFTYPE' });
  }
  try {
    await handle.chmod(PRIVATE_FILE_MODE);
    await handle.write(line);
  } finally {
    await handle.close();
  }
}
