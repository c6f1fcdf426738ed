/**
 * A lean Anthropic-compatible backend for the shim benchmarks, run as its own
 * process: it reads the request body to the end (as any server must) but
 * never parses it, and answers from canned bytes — a small JSON message, or
 * an SSE stream of N events: message_start at once, then the rest in one
 * burst (or paced, for the CPU-under-load run). Unlike the simulator it renders no
 * prompt, so what is measured is the proxy, not the backend.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpuMicros, serveCalls } from '../lib/child.js';

export interface StubMode {
  readonly kind: 'json' | 'sse';
  /** SSE: events in the whole stream (at least 6: start/stop frames plus deltas). */
  readonly events?: number;
  /** SSE: pause between delta events (0: write them all at once). */
  readonly eventDelayMs?: number;
  /** SSE, paced: time before message_start (prompt processing). */
  readonly firstEventDelayMs?: number;
}

const JSON_REPLY = Buffer.from(
  JSON.stringify({
    id: 'msg_bench',
    type: 'message',
    role: 'assistant',
    model: 'bench-model',
    content: [{ type: 'text', text: 'Done.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 12000, cache_read_input_tokens: 11000, output_tokens: 3 },
  }),
);

function frame(type: string, data: unknown): Buffer {
  return Buffer.from(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** The canned stream as separate events, so each can be written on its own as a server does per token. */
function sseEvents(total: number): Buffer[] {
  const deltas = Math.max(1, total - 5);
  const head = [
    frame('message_start', {
      type: 'message_start',
      message: { id: 'msg_bench', type: 'message', role: 'assistant', model: 'bench-model', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1000, cache_read_input_tokens: 11000, output_tokens: 1 } },
    }),
    frame('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
  ];
  const body = Array.from({ length: deltas }, (_, i) => frame('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ` tok${i % 100}` } }));
  const tail = [
    frame('content_block_stop', { type: 'content_block_stop', index: 0 }),
    frame('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: deltas } }),
    frame('message_stop', { type: 'message_stop' }),
  ];
  return [...head, ...body, ...tail];
}

function main(): void {
  let mode: StubMode = { kind: 'json' };
  let events = sseEvents(2000);

  const answer = (res: ServerResponse): void => {
    if (mode.kind === 'json') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': JSON_REPLY.length });
      res.end(JSON_REPLY);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const delay = mode.eventDelayMs ?? 0;
    if (delay <= 0) {
      // message_start goes out alone, as a server sends it with the first token; the rest follows in one burst.
      const [first, ...rest] = events;
      if (first) res.write(first);
      setImmediate(() => {
        for (const e of rest) res.write(e);
        res.end();
      });
      return;
    }
    let i = 0;
    const tick = (): void => {
      if (res.destroyed) return;
      const e = events[i++];
      if (e === undefined) {
        res.end();
        return;
      }
      res.write(e);
      setTimeout(tick, delay);
    };
    // Headers at once (as llama.cpp does when prompt processing starts), message_start after the prefill.
    res.flushHeaders();
    setTimeout(tick, mode.firstEventDelayMs ?? 0);
  };

  const server = createServer({ keepAliveTimeout: 60_000 }, (req: IncomingMessage, res: ServerResponse) => {
    req.on('data', () => undefined);
    req.on('end', () => {
      if (req.method === 'POST' && req.url?.startsWith('/v1/messages')) answer(res);
      else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"type":"error","error":{"type":"not_found_error","message":"stub: not found"}}');
      }
    });
  });

  serveCalls(
    {
      start: () =>
        new Promise<number>((resolve) => {
          server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)); // TCP listener: an AddressInfo
        }),
      mode: (params) => {
        mode = params as StubMode; // the parent sends a StubMode (see bench/parts/shim-overhead.ts)
        events = sseEvents(mode.events ?? 2000);
        return true;
      },
      cpu: () => cpuMicros(),
    },
    async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  );
}

main();
