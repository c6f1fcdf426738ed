/**
 * Backends that answer what no backend should: broken JSON, HTML, truncated
 * or endless streams, bytes that are not HTTP. Through the real shim, from a
 * hand-written stub. Each gets a specific answer to Claude Code and a specific
 * line in requests.jsonl; memory stays bounded; the shim keeps serving.
 */
import { request } from 'node:http';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { messagesBody, postMessages, shimInFront, startStub, type ShimFront, type Stub, type StubHandler } from './shim-stub.js';
import { until } from '../helpers/processes.js';

const MB = 1024 * 1024;
let stub: Stub | undefined;
let front: ShimFront | undefined;
afterEach(async () => {
  await front?.close();
  await stub?.close();
  front = undefined;
  stub = undefined;
});

async function through(handler: StubHandler): Promise<ShimFront> {
  stub = await startStub(handler);
  front = await shimInFront(stub.url);
  return front;
}

const SSE_OK = [
  'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"x","usage":{"input_tokens":3,"output_tokens":1}}}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}\n\n',
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}\n\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
];

/** After the fault: nothing of ours still waits on the stub, and an ordinary request goes through. */
async function stillServing(f: ShimFront): Promise<void> {
  expect(await until(() => f.shim.requests('stub').open === 0, 5000, 25)).toBe(true);
}

interface Case {
  readonly name: string;
  readonly stream: boolean;
  readonly handler: StubHandler;
  /** What Claude Code receives: status and body, or 'connection error' for a dropped connection. */
  readonly client: { status: number; body: unknown } | { status: number; text: string } | 'connection error';
  /** The requests.jsonl `error`. */
  readonly logged: string | RegExp | undefined;
}

const CASES: readonly Case[] = [
  {
    name: 'HTTP 500 with truncated JSON',
    stream: true,
    handler: (_q, res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"code":500,"message":"oo'),
    client: { status: 500, body: { type: 'error', error: { type: 'api_error', message: 'The model server \'stub\' answered HTTP 500 with a non-JSON body: {"error":{"code":500,"message":"oo' } } },
    logged: 'The model server \'stub\' answered HTTP 500 with a non-JSON body: {"error":{"code":500,"message":"oo',
  },
  {
    name: 'an HTML 502 page from a proxy',
    stream: true,
    handler: (_q, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html><head><title>502 Bad Gateway</title><style>b{}</style></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx/1.24.0</center></body></html>'),
    client: { status: 502, body: { type: 'error', error: { type: 'api_error', message: "The model server 'stub' answered HTTP 502 with a non-JSON body: 502 Bad Gateway 502 Bad Gateway nginx/1.24.0" } } },
    logged: "The model server 'stub' answered HTTP 502 with a non-JSON body: 502 Bad Gateway 502 Bad Gateway nginx/1.24.0",
  },
  {
    name: 'an error body that is not UTF-8',
    stream: false,
    handler: (_q, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end(Buffer.from([0x62, 0x61, 0x64, 0x20, 0xff, 0xfe, 0xc3, 0x28])),
    client: { status: 500, body: { type: 'error', error: { type: 'api_error', message: "The model server 'stub' answered HTTP 500 with a non-JSON body: bad \ufffd\ufffd\ufffd(" } } },
    logged: "The model server 'stub' answered HTTP 500 with a non-JSON body: bad \ufffd\ufffd\ufffd(",
  },
  {
    name: 'an error body cut mid-way',
    stream: true,
    handler: (_q, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.write('{"error":{"code":503,"message":"Loading', () => setTimeout(() => res.socket?.destroy(), 20));
    },
    client: { status: 503, body: { type: 'error', error: { type: 'overloaded_error', message: 'The model server \'stub\' answered HTTP 503 with a non-JSON body: {"error":{"code":503,"message":"Loading' } } },
    logged: 'The model server \'stub\' answered HTTP 503 with a non-JSON body: {"error":{"code":503,"message":"Loading',
  },
  {
    name: 'HTML with status 200 to a streaming request',
    stream: true,
    handler: (_q, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Welcome to nginx!</html>'),
    client: { status: 200, text: '<html>Welcome to nginx!</html>' },
    logged: 'the backend answered a streaming request with text/html, not an event stream',
  },
  {
    name: 'malformed JSON with status 200',
    stream: false,
    handler: (_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"msg_1","type":"mess'),
    client: { status: 200, text: '{"id":"msg_1","type":"mess' },
    logged: 'the backend answered 200 with a body that is not JSON',
  },
  {
    name: 'a stream that ends cleanly before message_stop',
    stream: true,
    handler: (_q, res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(SSE_OK.slice(0, 3).join('')),
    client: { status: 200, text: SSE_OK.slice(0, 3).join('') },
    logged: 'the stream ended before the answer was complete (no stop_reason)',
  },
  {
    name: 'a stream cut mid-way (connection dropped)',
    stream: true,
    handler: (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(SSE_OK.slice(0, 3).join(''), () => setTimeout(() => res.socket?.destroy(), 20));
    },
    client: 'connection error',
    logged: 'other side closed',
  },
  {
    name: 'a JSON answer cut mid-body: never delivered as a complete 200',
    stream: false,
    handler: (_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":"msg_1","type":"message","content":[{"type":"text","text":"par', () => setTimeout(() => res.socket?.destroy(), 20));
    },
    client: 'connection error',
    logged: 'other side closed',
  },
  {
    name: 'a stream line that never ends (8 MB without a line end)',
    stream: true,
    handler: (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    },
    client: 'connection error',
    logged: 'an SSE line longer than 8388608 bytes without a line end',
  },
  {
    name: 'an endless error body: read up to 1 MB, then answered',
    stream: true,
    handler: (_q, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'e');
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    },
    client: { status: 500, body: { type: 'error', error: { type: 'api_error', message: `The model server 'stub' answered HTTP 500 with a non-JSON body: ${'e'.repeat(200)}…` } } },
    logged: `The model server 'stub' answered HTTP 500 with a non-JSON body: ${'e'.repeat(200)}…`,
  },
];

/** POSTs and reads the whole answer; a dropped connection is reported, not thrown. */
function post(baseUrl: string, stream: boolean): Promise<{ status: number; text: string } | 'connection error'> {
  return new Promise((resolve) => {
    const req = request(`${baseUrl}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => resolve('connection error'));
      res.on('aborted', () => resolve('connection error'));
    });
    req.on('error', () => resolve('connection error'));
    req.end(messagesBody(stream));
  });
}

describe('backend answers that are not what they should be', () => {
  for (const c of CASES) {
    it(`${c.name}: ${c.client === 'connection error' ? 'the connection to Claude Code drops (it retries)' : `HTTP ${c.client.status} to Claude Code`}, a specific log line`, async () => {
      const f = await through(c.handler);
      const got = await post(f.baseUrl, c.stream);
      if (c.client === 'connection error') expect(got).toBe('connection error');
      else if ('body' in c.client) expect(got !== 'connection error' && { status: got.status, body: JSON.parse(got.text) as unknown }).toEqual(c.client);
      else expect(got).toEqual(c.client);
      await stillServing(f);
      expect(f.entries).toHaveLength(1);
      if (c.logged instanceof RegExp) expect(f.entries[0]!.error).toMatch(c.logged);
      else expect(f.entries[0]!.error).toBe(c.logged);
    });
  }

  it('a complete answer is logged with no error (the checks above do not fire on good streams)', async () => {
    const f = await through((_q, res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(SSE_OK.join('')));
    expect(await post(f.baseUrl, true)).toEqual({ status: 200, text: SSE_OK.join('') });
    expect(f.entries[0]).toMatchObject({ status: 200, usage: { input_tokens: 3, output_tokens: 2 } });
    expect(f.entries[0]!.error).toBeUndefined();
  });
});

describe('backends that are not HTTP servers', () => {
  const servers: Array<{ close(): void }> = [];
  afterEach(() => {
    for (const s of servers.splice(0)) s.close();
  });

  async function raw(onSocket: (s: Socket) => void): Promise<string> {
    const server = createServer(onSocket);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('accepts and closes at once: 503 naming the endpoint and what happened', async () => {
    const url = await raw((s) => s.destroy());
    front = await shimInFront(url);
    const res = await postMessages(front.baseUrl);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ type: 'error', error: { type: 'api_error', message: `Cannot reach the model server 'stub': ${new URL(url).host} closed the connection without answering (not an HTTP server, or it crashed)` } });
    await stillServing(front);
  });

  it('speaks another protocol (an SSH banner): 503 naming the endpoint', async () => {
    const url = await raw((s) => s.end('SSH-2.0-OpenSSH_9.6\r\n'));
    front = await shimInFront(url);
    const res = await postMessages(front.baseUrl);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      type: 'error',
      error: { type: 'api_error', message: `Cannot reach the model server 'stub': could not reach ${new URL(url).host}: Response does not match the HTTP/1.1 protocol (Expected HTTP/, RTSP/ or ICE/)` },
    });
    await stillServing(front);
  });
});

describe('a backend that streams without end', () => {
  /** Reads `limit` bytes through the shim from an endless stub, sampling this process's memory. */
  async function drink(contentType: string, chunk: Buffer, limit: number): Promise<{ got: number; growth: number }> {
    const f = await through((_q, res) => {
      res.writeHead(200, { 'content-type': contentType });
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const base = process.memoryUsage().rss;
    let growth = 0;
    const got = await new Promise<number>((resolve) => {
      let n = 0;
      const req = request(`${f.baseUrl}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        res.on('data', (d: Buffer) => {
          n += d.length;
          if ((n & (16 * MB - 1)) < d.length) growth = Math.max(growth, process.memoryUsage().rss - base);
          if (n >= limit) {
            res.destroy();
            resolve(n);
          }
        });
      });
      req.end(messagesBody(contentType === 'text/event-stream'));
    });
    await stillServing(f);
    expect(f.entries[0]).toMatchObject({ rewrites: expect.arrayContaining(['client closed the connection']) as unknown });
    return { got, growth };
  }

  const delta = `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${'y'.repeat(4000)}"}}\n\n`;
  it('an endless event stream (1 GB read) is passed through with bounded memory, and released when Claude Code hangs up', async () => {
    const { got, growth } = await drink('text/event-stream', Buffer.alloc(64 * 1024, delta), 1024 * MB);
    expect(got).toBeGreaterThanOrEqual(1024 * MB);
    expect(growth).toBeLessThan(128 * MB);
  }, 60_000);

  it('an endless JSON body is passed through with bounded memory', async () => {
    const { got, growth } = await drink('application/json', Buffer.alloc(64 * 1024, '{"a":1}'), 256 * MB);
    expect(got).toBeGreaterThanOrEqual(256 * MB);
    expect(growth).toBeLessThan(128 * MB);
  }, 60_000);
});
