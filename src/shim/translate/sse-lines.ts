/**
 * Splits an SSE byte stream into lines across chunk boundaries without
 * decoding it. Owns only line framing (LF or CRLF; a lone CR is not a line end
 * here: neither llama.cpp nor vLLM sends one). Callers decide what to decode.
 */

export const LF = 0x0a;
const CR = 0x0d;

/**
 * One complete line: `buf[start, end)` is its text without the line ending,
 * `buf[start, rawEnd)` includes it.
 */
export type LineHandler = (buf: Buffer, start: number, end: number, rawEnd: number) => void;

export class SseLineSplitter {
  private pending: Buffer[] = [];

  /** Calls `onLine` for every line completed by `chunk`; keeps a trailing partial line for the next call. */
  push(chunk: Buffer, onLine: LineHandler): void {
    let start = 0;
    let lf = chunk.indexOf(LF, start);
    while (lf !== -1) {
      if (this.pending.length > 0) {
        const line = Buffer.concat([...this.pending, chunk.subarray(start, lf + 1)]);
        this.pending = [];
        onLine(line, 0, contentEnd(line, 0, line.length - 1), line.length);
      } else {
        onLine(chunk, start, contentEnd(chunk, start, lf), lf + 1);
      }
      start = lf + 1;
      lf = chunk.indexOf(LF, start);
    }
    // A copy: the caller may reuse its chunk buffer once push returns.
    if (start < chunk.length) this.pending.push(Buffer.from(chunk.subarray(start)));
  }

  /** Holds `partial` (no line end in it) after what is already held; copied, the caller may reuse its buffer. */
  hold(partial: Buffer): void {
    this.pending.push(Buffer.from(partial));
  }

  /** True while a partial line is held back. */
  hasPending(): boolean {
    return this.pending.length > 0;
  }

  /** The held-back partial line, removed from the splitter. */
  takePending(): Buffer {
    const rest = Buffer.concat(this.pending);
    this.pending = [];
    return rest;
  }

  /** The held-back partial line, left in place. */
  peekPending(): Buffer {
    return Buffer.concat(this.pending);
  }
}

/** End of the line's text given the index of its LF: drops a CR right before it. */
function contentEnd(buf: Buffer, start: number, lf: number): number {
  return lf > start && buf[lf - 1] === CR ? lf - 1 : lf;
}

/** Whether `buf[start, end)` begins with the ASCII `prefix`. */
export function startsWithAscii(buf: Buffer, start: number, end: number, prefix: string): boolean {
  if (end - start < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) {
    if (buf[start + i] !== prefix.charCodeAt(i)) return false;
  }
  return true;
}

/** The value of an SSE field line (`name:value`), without the one optional space after the colon. */
export function fieldValue(buf: Buffer, start: number, end: number, name: string): string {
  let from = start + name.length + 1;
  if (buf[from] === 0x20) from += 1;
  return buf.toString('utf8', Math.min(from, end), end);
}
