/**
 * Reads a growing log file (transcript.txt, requests.jsonl) from where the
 * last read stopped, returning only complete lines: `tail -f` without a
 * watcher, for a poll loop. A file that does not exist yet reads as empty.
 */
import { open } from 'node:fs/promises';

export interface FileTail {
  /** Complete lines appended since the last call. */
  read(): Promise<string[]>;
  /** Whatever is left after the last newline (a line still being written), once the writer is done. */
  rest(): string;
}

export function createFileTail(path: string, from = 0): FileTail {
  let offset = from;
  // Bytes after the last newline: kept as bytes so a UTF-8 character split by the writer decodes whole later.
  let partial: Buffer = Buffer.alloc(0);
  return {
    async read() {
      let handle;
      try {
        handle = await open(path, 'r');
      } catch {
        return []; // not created yet (the job has not started writing)
      }
      try {
        const chunks: Buffer[] = [];
        const buffer = Buffer.alloc(64 * 1024);
        for (;;) {
          const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
          if (bytesRead === 0) break;
          chunks.push(Buffer.from(buffer.subarray(0, bytesRead)));
          offset += bytesRead;
        }
        const bytes = Buffer.concat([partial, ...chunks]);
        const end = bytes.lastIndexOf(0x0a);
        if (end === -1) {
          partial = bytes;
          return [];
        }
        partial = bytes.subarray(end + 1);
        return bytes.subarray(0, end).toString('utf8').split('\n');
      } finally {
        await handle.close();
      }
    },
    rest: () => partial.toString('utf8'),
  };
}
