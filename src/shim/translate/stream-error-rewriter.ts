/**
 * Rewrites `event: error` payloads inside an SSE byte stream into Anthropic's
 * shape and passes every other byte through unchanged. Chunk-boundary safe:
 * an event or line split across chunks is handled the same as a whole one.
 *
 * Latency: bytes of ordinary events are released as soon as their line is
 * complete (a chunk that ends on a line end is returned as the same Buffer);
 * only the lines of an error event are held until its blank line.
 */
import type { BackendKind } from '../../config/schema.js';
import { SseLineSplitter, fieldValue, startsWithAscii } from './sse-lines.js';
import { translateStreamErrorData } from './stream-error.js';

export interface StreamErrorRewriter {
  /** Bytes to forward for this chunk (possibly empty while an error event is being collected). */
  push(chunk: Buffer): Buffer;
  /** Whatever is still held at the end of the stream (a final event without its blank line, translated). */
  end(): Buffer;
}

export interface StreamErrorRewriterOptions {
  readonly backend: BackendKind;
  readonly endpoint?: string;
}

const EVENT_ERROR = [Buffer.from('event: error'), Buffer.from('event:error')];
const EVENT_PREFIX = Buffer.from('event:');
const EMPTY = Buffer.alloc(0);

export function createStreamErrorRewriter(options: StreamErrorRewriterOptions): StreamErrorRewriter {
  const splitter = new SseLineSplitter();
  let inError = false;
  let held: Buffer[] = [];
  let dataLines: string[] = [];
  let eol = '\n';

  /**
   * The collected error event, rewritten when its data changes, otherwise its
   * original bytes. A rewritten event always ends with its blank line, so a
   * stream cut right after the error still delivers it.
   */
  const flushError = (): Buffer => {
    const original = Buffer.concat(held);
    const translated = translateStreamErrorData(dataLines.join('\n'), options.backend, options.endpoint);
    inError = false;
    held = [];
    dataLines = [];
    if (!translated.changed) return original;
    return Buffer.from(`event: error${eol}data: ${translated.data}${eol}${eol}`);
  };

  const slowPath = (chunk: Buffer): Buffer => {
    const out: Buffer[] = [];
    splitter.push(chunk, (buf, start, end, rawEnd) => {
      const raw = buf.subarray(start, rawEnd);
      if (inError) {
        held.push(Buffer.from(raw)); // held past this call: copy, the caller may reuse its chunk
        if (start === end) out.push(flushError());
        else if (startsWithAscii(buf, start, end, 'data:')) dataLines.push(fieldValue(buf, start, end, 'data'));
        return;
      }
      if (startsWithAscii(buf, start, end, 'event:') && fieldValue(buf, start, end, 'event') === 'error') {
        inError = true;
        eol = rawEnd - end === 2 ? '\r\n' : '\n';
        held.push(Buffer.from(raw));
        return;
      }
      out.push(raw);
    });
    return out.length === 1 && out[0] !== undefined ? out[0] : Buffer.concat(out);
  };

  /** A held partial line that is, or may grow into, an `event:` line: the next chunk must go the slow way. */
  const pendingMayBeEvent = (): boolean => {
    const pending = splitter.peekPending();
    const n = Math.min(pending.length, EVENT_PREFIX.length);
    return pending.subarray(0, n).equals(EVENT_PREFIX.subarray(0, n));
  };

  return {
    push(chunk: Buffer): Buffer {
      // Fast path: no error event can start in this chunk, so every complete line goes on as it came.
      if (inError || chunk.length === 0 || EVENT_ERROR.some((needle) => chunk.indexOf(needle) !== -1)) return slowPath(chunk);
      if (splitter.hasPending() && pendingMayBeEvent()) return slowPath(chunk);
      const lastLf = chunk.lastIndexOf(0x0a);
      if (lastLf === -1) {
        splitter.hold(chunk);
        return EMPTY;
      }
      if (!splitter.hasPending() && lastLf === chunk.length - 1) return chunk;
      const head = chunk.subarray(0, lastLf + 1);
      const out = splitter.hasPending() ? Buffer.concat([splitter.takePending(), head]) : head;
      if (lastLf + 1 < chunk.length) splitter.hold(chunk.subarray(lastLf + 1));
      return out;
    },
    end(): Buffer {
      const rest = splitter.takePending();
      if (!inError) return rest;
      held.push(rest);
      if (startsWithAscii(rest, 0, rest.length, 'data:')) dataLines.push(fieldValue(rest, 0, rest.length, 'data'));
      return flushError();
    },
  };
}
