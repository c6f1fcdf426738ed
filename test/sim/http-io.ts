/**
 * Low-level response writing for the simulator: JSON bodies, abortable sleeps,
 * and the SSE writer that paces events and injects faults (cut socket, hang,
 * mid-stream error).
 */
import type { ServerResponse } from 'node:http';

export interface SseEvent {
  readonly event: string;
  readonly data: unknown;
  /** A content delta: paced by tokenDelayMs. */
  readonly delta?: boolean;
  /** Part of the closing sequence (signature/stop/message_delta/message_stop). */
  readonly closing?: boolean;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, text: string, headers: Readonly<Record<string, string>> = {}): void {
  res.writeHead(status, { 'Content-Length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

/** Resolves after `ms`, or at once when `signal` aborts (callers check `signal.aborted`). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted === true) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Sleeps `ms`, writing the SSE comment ":\n\n" every `pingMs` meanwhile (llama.cpp --sse-ping-interval). */
export async function sleepWithPings(res: ServerResponse, ms: number, pingMs: number, signal: AbortSignal): Promise<void> {
  const end = Date.now() + ms;
  while (!signal.aborted && Date.now() < end) {
    const left = end - Date.now();
    if (pingMs <= 0 || left <= pingMs) return sleep(left, signal);
    await sleep(pingMs, signal);
    if (!signal.aborted) res.write(':\n\n');
  }
}

/** Resolves when `signal` aborts (used to hang until the client leaves or the simulator closes). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

export function formatSse(ev: SseEvent): string {
  return `event: ${ev.event}\ndata: ${JSON.stringify(ev.data)}\n\n`;
}

export function writeSseHeaders(res: ServerResponse, contentType: string): void {
  res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
  res.flushHeaders();
}

export interface StreamFaults {
  readonly cutAfterEvents?: number | undefined;
  /** Event to emit instead of the closing sequence, and where (default: before the first closing event). */
  readonly error?: { readonly event: SseEvent; readonly afterEvents?: number | undefined } | undefined;
}

export type StreamOutcome = 'done' | 'cut' | 'errored' | 'aborted';

/**
 * Writes `events` to an already-open SSE response. Deltas after the first are
 * spaced by `tokenDelayMs`. Ends the response except when the socket was cut.
 */
export async function writeEvents(
  res: ServerResponse,
  events: readonly SseEvent[],
  tokenDelayMs: number,
  faults: StreamFaults,
  signal: AbortSignal,
): Promise<StreamOutcome> {
  const firstClosing = events.findIndex((e) => e.closing === true);
  const errorAt = faults.error === undefined ? -1 : (faults.error.afterEvents ?? (firstClosing < 0 ? events.length : firstClosing));
  let sentDelta = false;
  let lastWrite: Promise<void> = Promise.resolve();
  for (let i = 0; i <= events.length; i++) {
    if (signal.aborted) return 'aborted';
    if (faults.cutAfterEvents !== undefined && i === faults.cutAfterEvents) {
      // Let the events already written reach the client, then drop the connection mid-body.
      await Promise.race([lastWrite, untilAborted(signal)]);
      res.socket?.end();
      return 'cut';
    }
    if (faults.error !== undefined && i === errorAt) {
      res.end(formatSse(faults.error.event));
      return 'errored';
    }
    const ev = events[i];
    if (ev === undefined) break;
    if (ev.delta === true) {
      if (sentDelta) await sleep(tokenDelayMs, signal);
      sentDelta = true;
      if (signal.aborted) return 'aborted';
    }
    const chunk = formatSse(ev);
    lastWrite = new Promise((resolve) => res.write(chunk, () => resolve()));
  }
  res.end();
  return 'done';
}
