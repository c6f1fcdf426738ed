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
}

/** An errno-shaped error, so src/path-errors.ts words it like the kernel's own. */
function notRegular(path: string, stats: Stats): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`EFTYPE: ${path} is ${describeEntry(path, stats)}, not a regular file`);
  err.code = stats.isDirectory() ? 'EISDIR' : 'EFTYPE';
  err.path = path;
  err.syscall = 'open';
  return err;
}

/** An open handle on `path`, which is a regular file; the caller closes it. */
export async function openRegularFile(path: string, options: RegularFileOptions = {}): Promise<FileHandle> {
  const flags = constants.O_RDONLY | constants.O_NONBLOCK | (options.follow === true ? 0 : constants.O_NOFOLLOW);
  const handle = await open(path, flags);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notRegular(path, stats);
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
