/**
 * Reading a file localagents keeps without trusting its shape: a FIFO left
 * where a record belongs would block a plain readFile (and a libuv thread)
 * forever, a folder or device is not a record, and a symbolic link in the
 * state directory is not ours to follow. Opened non-blocking, checked with
 * fstat on the open handle (no race between check and read), read up to a limit.
 */
import { constants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { describeEntry } from '../path-errors.js';

export interface RegularFileOptions {
  /** Follow a symbolic link at the path itself (models.yaml may be a link into a dotfiles repo); state files never. */
  readonly follow?: boolean;
  /** Refuse a file larger than this (EFBIG), before reading any of it. */
  readonly maxBytes?: number;
}

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;
/** How a state file is opened, also by synchronous readers: never blocking on a FIFO, never through a link. */
export const STATE_FILE_FLAGS = OPEN_FLAGS | constants.O_NOFOLLOW;

/** An errno-shaped error, so src/path-errors.ts words it like the kernel's own. */
function errnoError(path: string, code: string, message: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(message);
  err.code = code;
  err.path = path;
  err.syscall = 'open';
  return err;
}

const notRegular = (path: string, stats: Stats): NodeJS.ErrnoException =>
  errnoError(path, stats.isDirectory() ? 'EISDIR' : 'EFTYPE', `EFTYPE: ${path} is ${describeEntry(path, stats)}, not a regular file`);

/** An open handle on `path`, which is a regular file; the caller closes it. */
export async function openRegularFile(path: string, options: RegularFileOptions = {}): Promise<FileHandle> {
  const handle = await open(path, options.follow === true ? OPEN_FLAGS : STATE_FILE_FLAGS);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notRegular(path, stats);
    if (options.maxBytes !== undefined && stats.size > options.maxBytes) throw errnoError(path, 'EFBIG', `EFBIG: ${path} holds ${stats.size} bytes, more than ${options.maxBytes}`);
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** The whole of a regular file at `path`. */
export async function readRegularFile(path: string, options: RegularFileOptions = {}): Promise<Buffer> {
  const handle = await openRegularFile(path, options);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
