/**
 * A backend that closes a kept-alive connection just as the shim reuses it.
 * llama-server (cpp-httplib) answers `Keep-Alive: timeout=5` and closes an idle
 * socket after that; undici keeps the socket up to the timeout minus a 2 s
 * margin, so now and then a request goes out on a socket the server is closing,
 * and fails ("other side closed", ECONNRESET) before any byte of an answer. The
 * shim sends such a request once more on a fresh connection. It never resends
 * after answer bytes came, nor when a fresh connection fails (an outage).
 *
 * The backend here closes a socket the moment a second request arrives on it,
 * so the race that is rare against llama-server happens every time.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import type { RequestLogEntry } from '../../src/shim/request-log/request-log.js';
import { createShimServer } from '../../src/shim/server.js';
import { until } from '../helpers/processes.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';

/** What the backend does with a request that arrives on a socket that already carried an answer. */
type OnReuse = 'answer' | 'close' | 'reset' | 'cut after headers';
/** What it does with the first request of a fresh socket. */
type OnFresh = 'answer' | 'close';

interface Backend {
  readonly url: string;
  /** Per socket, in the order they connected: how many requests each carried. */
  readonly sockets: number[];
  onReuse: OnReuse;
  onFresh: OnFresh;
  close(): Promise<void>;
}

const ANSWER = JSON.stringify({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'm',
  content: [{ type: 'text', text: 'hello' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 12, output_tokens: 1 },
});

async function startBackend(): Promise<Backend> {
  const perSocket = new Map<Socket, number>();
  const sockets: number[] = [];
  const backend = { onReuse: 'answer' as OnReuse, onFresh: 'answer' as OnFresh };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const socket = req.socket;
    const index = perSocket.get(socket) ?? sockets.push(0) - 1;
    perSocket.set(socket, index);
    sockets[index] = (sockets[index] ?? 0) + 1;
    const reused = (sockets[index] ?? 0) > 1;
    const action = reused ? backend.onReuse : backend.onFresh;
    if (action === 'close') return void socket.destroy();
    if (action === 'reset') return void socket.resetAndDestroy();
    req.resume();
    req.on('end', () => {
      if (action === 'cut after headers') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":12}}}\n\n', () => socket.destroy());
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(ANSWER) });
      res.end(ANSWER);
    });
  };
  const server: Server = createServer({ keepAliveTimeout: 60_000 }, handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(backend, {
    url: `http://127.0.0.1:${port}`,
    sockets,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

const cleanups = cleanupsAfterEach();

async function setup(): Promise<{ backend: Backend; post: () => Promise<{ status: number; text: string }>; log: RequestLogEntry[] }> {
  const backend = await startBackend();
  cleanups.push(() => backend.close());
  const shim = createShimServer(silentLogger);
  cleanups.push(() => shim.close());
  const log: RequestLogEntry[] = [];
  const open = await shim.open({
    jobId: 'j',
    endpoint: { name: 'gpu', base_url: backend.url, backend: 'llama.cpp' },
    servedModel: 'm',
    context: undefined,
    log: { dumping: false, write: (e) => log.push(e), writeFull: () => undefined, close: () => Promise.resolve() },
  });
  const body = JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 100, stream: false, messages: [{ role: 'user', content: 'hi' }] });
  const post = async (): Promise<{ status: number; text: string }> => {
    const res = await fetch(`${open.baseUrl}/v1/messages?beta=true`, { method: 'POST', headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body });
    return { status: res.status, text: await res.text() };
  };
  return { backend, post, log };
}

const RESENT = /^resent on a fresh connection: gpu closed the kept-alive one before answering \(.+\)$/;

describe('a backend that closes a kept-alive connection as the shim reuses it', () => {
  for (const how of ['close', 'reset'] as const) {
    it(`${how === 'close' ? 'closes (FIN)' : 'resets (RST)'} the reused socket: the request is sent once more on a fresh connection and answered; requests.jsonl says so`, async () => {
      const { backend, post, log } = await setup();
      backend.onReuse = how;
      expect(await post()).toMatchObject({ status: 200 });
      expect(await until(() => log.length === 1, 5000)).toBe(true); // the first exchange is over: its socket is back in the pool
      const second = await post();
      expect(second).toEqual({ status: 200, text: ANSWER });
      // The first socket carried the first answer and the doomed request; the resend went on a second socket.
      expect(backend.sockets).toEqual([2, 1]);
      expect(log).toHaveLength(2);
      expect(log[0]!.rewrites.filter((r) => RESENT.test(r))).toEqual([]);
      expect(log[1]).toMatchObject({ status: 200, error: undefined });
      expect(log[1]!.rewrites.filter((r) => RESENT.test(r))).toHaveLength(1);
    });
  }

  it('resends at most once: when the fresh connection is closed too, the answer is the ordinary "cannot reach" error', async () => {
    const { backend, post, log } = await setup();
    backend.onReuse = 'close';
    expect(await post()).toMatchObject({ status: 200 });
    backend.onFresh = 'close';
    const second = await post();
    expect(second.status).toBe(503);
    expect(second.text).toContain("Cannot reach the model server 'gpu'");
    expect(second.text).toContain('closed the connection without answering');
    expect(backend.sockets).toEqual([2, 1]);
    expect(log[1]!.rewrites.filter((r) => RESENT.test(r))).toHaveLength(1);
  });

  it('never resends a request whose fresh connection fails: that is the backend going away, not a stale socket', async () => {
    const { backend, post, log } = await setup();
    backend.onFresh = 'close';
    const first = await post();
    expect(first.status).toBe(503);
    expect(first.text).toContain('closed the connection without answering');
    expect(backend.sockets).toEqual([1]);
    expect(log[0]!.rewrites.filter((r) => RESENT.test(r))).toEqual([]);
  });

  it('never resends once answer bytes came: a stream cut after its headers reaches Claude Code as a cut', async () => {
    const { backend, post, log } = await setup();
    backend.onReuse = 'cut after headers';
    expect(await post()).toMatchObject({ status: 200 });
    expect(await until(() => log.length === 1, 5000)).toBe(true);
    await expect(post()).rejects.toThrow(); // the shim drops Claude Code's connection too
    expect(await until(() => log.length === 2, 5000)).toBe(true);
    expect(backend.sockets).toEqual([2]);
    expect(log[1]).toMatchObject({ status: 200, error_source: 'cut' });
    expect(log[1]!.rewrites.filter((r) => RESENT.test(r))).toEqual([]);
  });
});
