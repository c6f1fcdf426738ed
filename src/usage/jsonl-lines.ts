/**
 * The lines of a JSONL file, read in chunks so a year-long log never sits in
 * memory whole. A line longer than `maxLineBytes` is skipped and counted; a last
 * line without its newline (a writer that crashed mid-line, or one still writing)
 * is reported apart, not parsed.
 */
import { open, type FileHandle } from 'node:fs/promises';

export interface LineVisit {
  /** Lines over the length limit, skipped. */
  readonly tooLong: number;
  /** The file ended in the middle of a line. */
  readonly halfWritten: boolean;
}

const CHUNK_BYTES = 64 * 1024;

/** Calls `onLine` for every complete line; a missing file (or folder) has none. */
export async function forEachLine(path: string, maxLineBytes: number, onLine: (line: string) => void): Promise<LineVisit> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    // ENOTDIR: the job's folder could never be made (a state directory that cannot hold jobs), so it has no log.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { tooLong: 0, halfWritten: false };
    throw err;
  }
  try {
    return await forEachLineOf(handle, maxLineBytes, Infinity, onLine);
  } finally {
    await handle.close();
  }
}

/** The same over an open file (the caller closes it), reading no more than `maxBytes` of it. */
export async function forEachLineOf(handle: FileHandle, maxLineBytes: number, maxBytes: number, onLine: (line: string) => void): Promise<LineVisit> {
  let tooLong = 0;
  let total = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  const chunk = Buffer.alloc(CHUNK_BYTES);
  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(CHUNK_BYTES, maxBytes - total), null);
    if (bytesRead === 0) break;
    total += bytesRead;
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1 && nl < bytesRead; nl = chunk.indexOf(10, start)) {
      if (!skipping && pendingBytes + (nl - start) <= maxLineBytes) {
        pending.push(Buffer.from(chunk.subarray(start, nl)));
        const line = Buffer.concat(pending).toString('utf8');
        if (line.trim() !== '') onLine(line);
      } else {
        tooLong++;
      }
      pending = [];
      pendingBytes = 0;
      skipping = false;
      start = nl + 1;
    }
    if (start < bytesRead && !skipping) {
      pendingBytes += bytesRead - start;
      if (pendingBytes > maxLineBytes) {
        skipping = true;
        pending = [];
      } else {
        pending.push(Buffer.from(chunk.subarray(start, bytesRead)));
      }
    }
  }
  const halfWritten = skipping || pending.some((b) => b.toString('utf8').trim() !== '');
  return { tooLong, halfWritten };
}
