/**
 * Issue #11 class 6: no answer and no request can grow the server without
 * bound. A probe reads at most 4 MiB of an answer, local_complete at most
 * 16 MiB, and says so naming the endpoint and the limit; an answer that stalls
 * mid-body is not "sent no answer"; local_complete explains an HTML or SSE 200
 * instead of `internal: Unexpected token`; the shim refuses requests over
 * 32 MiB with 413 before reading them, and never reaches the backend.
 */
import { connect as netConnect } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { nullRequestLog } from '../../src/shim/request-log/request-log.js';
import { createShimServer, type ShimServer } from '../../src/shim/server.js';
import { connect, makeDirs, writeConfig, type Connected, type E2EDirs } from '../e2e/harness.js';
import { json, startHostileServer, type HostileServer } from './hostile-server.js';

/** Streams `head` then `piece` over and over, paced (~50 MB/s) and as fast as the reader takes it, so even an unbounded reader ends; counts what went out. */
function endlessAnswer(res: ServerResponse, contentType: string, head: string, piece: string, sent: { bytes: number }): void {
  res.writeHead(200, { 'content-type': contentType });
  res.write(head);
  const chunk = Buffer.from(piece.repeat(Math.ceil((1 << 20) / piece.length)));
  const timer = setInterval(() => {
    // Stop at 512 MiB: an old, unbounded reader would otherwise take the test machine with it.
    if (res.destroyed || sent.bytes > 512 * (1 << 20)) return clearInterval(timer);
    if (res.writableNeedDrain) return; // count only what the reader took, not what piles up here
    sent.bytes += chunk.length;
    res.write(chunk);
  }, 20);
  res.on('close', () => clearInterval(timer));
}

/** The documented limits (SECURITY.md). */
const MiB = 1 << 20;
const MAX_PROBE_BODY = 4 * MiB;
const MAX_COMPLETE_ANSWER = 16 * MiB;
const MAX_REQUEST_BODY = 32 * MiB;
/** After a 413 the shim reads and drops at most this long and this much more before it closes (lingering-close.ts). */
const LINGER_MS = 2000;
const LINGER_BYTES = 64 * MiB;
const formatBytes = (n: number): string => `${n / MiB} MiB`;

const MODELS = { object: 'list', data: [{ id: 'qwen-test', meta: { n_ctx: 131072 } }] };

describe('probes and local_complete read bounded answers (the built binary over stdio)', () => {
  let hostile: HostileServer;
  let dirs: E2EDirs;
  let server: Connected;

  beforeAll(async () => {
    hostile = await startHostileServer();
    dirs = makeDirs();
    writeConfig(dirs, `endpoints:\n  evil:\n    base_url: ${hostile.url}\ndefaults:\n  probe_timeout_s: 3\n`);
    server = await connect(dirs);
  });
  afterAll(async () => {
    await server?.close();
    await hostile?.close();
  });

  const reasonOf = async (): Promise<string> => {
    const result = await server.call('list_models', {});
    const endpoints = (result.structuredContent as { endpoints: Array<{ endpoint: string; reason: string }> }).endpoints;
    return endpoints.find((e) => e.endpoint === 'evil')?.reason ?? 'no endpoint evil in the listing';
  };

  it('an endless /v1/models is cut at the probe limit, named as such, and read no further', async () => {
    const sent = { bytes: 0 };
    hostile.on('GET /v1/models', (_req, res) => endlessAnswer(res, 'application/json', '{"object":"list","data":[', '{"id":"m"},', sent));
    const reason = await reasonOf();
    expect(reason).toContain(`GET ${hostile.url}/v1/models sent more than ${formatBytes(MAX_PROBE_BODY)}`);
    expect(reason).not.toContain('sent no answer');
    // What the server managed to push before we hung up: the limit plus socket buffers, not the whole probe timeout's worth.
    expect(sent.bytes).toBeLessThan(MAX_PROBE_BODY + 32 * (1 << 20));
  });

  it('a /v1/models that starts and then stalls is reported as a stalled body, not as no answer', async () => {
    hostile.on('GET /v1/models', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"object":"list","data":[');
      const timer = setInterval(() => res.write(' '), 200);
      res.on('close', () => clearInterval(timer));
    });
    const reason = await reasonOf();
    expect(reason).toContain('answered HTTP 200 but did not finish its body within the probe timeout');
    expect(reason).not.toContain('sent no answer');
  });

  describe('local_complete', () => {
    beforeAll(() => {
      hostile.on('GET /v1/models', (_req, res) => json(res, 200, MODELS));
    });

    const complete = async (): Promise<string> => {
      const result = await server.call('local_complete', { prompt: 'Say hi.', model: 'qwen-test' });
      expect(result.isError).toBe(true);
      return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    };

    it('an HTML 200 (a login page, a web server) gets a clear error, not "Unexpected token"', async () => {
      hostile.on('POST /v1/messages', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<!doctype html><html><body><h1>Sign in to the GPU gateway</h1></body></html>');
      });
      const text = await complete();
      expect(text).toContain('evil answered HTTP 200 with a body that is not a Messages JSON answer (text/html');
      expect(text).toContain('Sign in to the GPU gateway');
      expect(text).not.toContain('Unexpected token');
    });

    it('an SSE 200 to a non-streaming request gets a clear error', async () => {
      hostile.on('POST /v1/messages', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end('event: message_start\ndata: {"type":"message_start"}\n\n');
      });
      const text = await complete();
      expect(text).toContain('evil answered HTTP 200 with an event stream (text/event-stream) although localagents asked for stream: false');
      expect(text).not.toContain('Unexpected token');
    });

    it('an endless JSON answer is cut at the limit, named, and read no further', async () => {
      const sent = { bytes: 0 };
      hostile.on('POST /v1/messages', (_req, res) =>
        endlessAnswer(res, 'application/json', '{"type":"message","content":[{"type":"text","text":"', 'ha', sent),
      );
      const text = await complete();
      expect(text).toContain(`POST /v1/messages on evil sent more than ${formatBytes(MAX_COMPLETE_ANSWER)}`);
      expect(sent.bytes).toBeLessThan(MAX_COMPLETE_ANSWER + 64 * (1 << 20));
    });
  });
});

describe('the shim refuses oversized requests before reading them', () => {
  let hostile: HostileServer;
  let shim: ShimServer;
  let base: URL;

  beforeAll(async () => {
    hostile = await startHostileServer();
    hostile.on('POST /v1/messages', (_req, res) => json(res, 200, { type: 'message', role: 'assistant', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } }));
    shim = createShimServer(silentLogger);
    const route = await shim.open({
      jobId: 'j1',
      endpoint: { name: 'gpu', base_url: hostile.url, backend: 'llama.cpp' } as never,
      servedModel: 'qwen-test',
      context: undefined,
      vision: true, // a model that sees images: the screenshot's bytes are forwarded, not replaced by a note
      log: nullRequestLog,
    });
    base = new URL(route.baseUrl);
  });
  afterAll(async () => {
    await shim?.close();
    await hostile?.close();
  });

  /**
   * Sends a request by hand, feeding body bytes until the shim answers (or, with `ignoreAnswer`, until the shim
   * closes the socket: a client that never stops); returns the status line, body and bytes fed.
   */
  function rawPost(headers: string[], chunk: Buffer, maxBytes: number, ignoreAnswer = false): Promise<{ head: string; body: string; fed: number }> {
    return new Promise((resolve, reject) => {
      // allowHalfOpen: the shim's FIN after its answer does not end our side; only its close stops a client that ignores the answer.
      const socket = netConnect({ port: Number(base.port), host: '127.0.0.1', allowHalfOpen: ignoreAnswer });
      let answer = '';
      let fed = 0;
      let done = false;
      const feed = (): void => {
        while (!done && fed < maxBytes && !socket.destroyed) {
          fed += chunk.length;
          if (!socket.write(chunk)) return void socket.once('drain', feed);
        }
      };
      socket.on('connect', () => {
        socket.write([`POST ${base.pathname}/v1/messages?beta=true HTTP/1.1`, `host: ${base.host}`, 'content-type: application/json', ...headers, '', ''].join('\r\n'));
        feed();
      });
      socket.on('data', (d: Buffer) => {
        done = !ignoreAnswer;
        answer += d.toString();
      });
      socket.on('error', (err) => (answer || ignoreAnswer ? undefined : reject(err)));
      socket.on('close', () => {
        const [head = '', body = ''] = answer.split('\r\n\r\n');
        resolve({ head, body, fed });
      });
    });
  }

  it('a declared Content-Length over the limit gets 413 at once, and nothing reaches the backend', async () => {
    const declared = MAX_REQUEST_BODY + 1;
    const { head, body, fed } = await rawPost([`content-length: ${declared}`], Buffer.alloc(1 << 20, 0x20), declared);
    expect(head).toMatch(/^HTTP\/1\.1 413 /);
    const error = (JSON.parse(body) as { error: { type: string; message: string } }).error;
    expect(error.type).toBe('request_too_large');
    expect(error.message).toContain(formatBytes(MAX_REQUEST_BODY));
    expect(fed).toBeLessThan(declared);
    expect(hostile.seen.filter((r) => r.url.startsWith('/v1/messages'))).toEqual([]);
  });

  it('a chunked body is counted as it comes: 413 once it passes the limit, never forwarded', async () => {
    // The client is still writing when the shim answers: unless the shim reads on until the client stops, the
    // kernel's reset can reach the client before the 413 does (EPIPE/ECONNRESET instead of an answer). Measured
    // before the fix: 1 in 5 answers lost with 64 KiB chunks, so ten in a row make a lost one near certain.
    const piece = Buffer.alloc(64 << 10, 0x20);
    const chunk = Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]);
    for (let attempt = 1; attempt <= 10; attempt++) {
      const { head, fed } = await rawPost(['transfer-encoding: chunked'], chunk, 4 * MAX_REQUEST_BODY);
      expect(head, `attempt ${attempt}`).toMatch(/^HTTP\/1\.1 413 /);
      expect(fed).toBeLessThan(4 * MAX_REQUEST_BODY);
    }
    expect(hostile.seen.filter((r) => r.url.startsWith('/v1/messages'))).toEqual([]);
  }, 60_000);

  it('a client that never stops sending after the 413 is cut off after at most 64 MiB more', async () => {
    const piece = Buffer.alloc(1 << 20, 0x20);
    const chunk = Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]);
    const { fed } = await rawPost(['transfer-encoding: chunked'], chunk, 16 * MAX_REQUEST_BODY, true);
    // The limit, the 64 MiB read after the answer, and what socket buffers hold: far short of what the client would send.
    expect(fed).toBeLessThan(MAX_REQUEST_BODY + LINGER_BYTES + 32 * MiB);
  });

  it('a client that trickles on after the 413 is cut off after about 2 s', async () => {
    const declared = MAX_REQUEST_BODY + 1;
    const started = Date.now();
    const socket = netConnect({ port: Number(base.port), host: '127.0.0.1', allowHalfOpen: true });
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('error', () => undefined); // the shim's cut may arrive as a reset
    socket.on('connect', () => socket.write([`POST ${base.pathname}/v1/messages HTTP/1.1`, `host: ${base.host}`, `content-length: ${declared}`, '', ''].join('\r\n')));
    const trickle = setInterval(() => socket.write(' '), 50);
    await new Promise((resolve) => socket.on('close', resolve));
    clearInterval(trickle);
    const openMs = Date.now() - started;
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(openMs).toBeGreaterThanOrEqual(LINGER_MS - 100);
  });

  it('a real-sized request with an image (several MB) still goes through', async () => {
    const image = randomBytes(4 << 20).toString('base64'); // ~5.6 MB of base64, as a screenshot would be
    const body = JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: image } }, { type: 'text', text: 'What is this?' }] }],
    });
    const res = await fetch(`${base.href}/v1/messages?beta=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(200);
    const forwarded = hostile.seen.filter((r) => r.url.startsWith('/v1/messages'));
    expect(forwarded).toHaveLength(1);
    expect(forwarded[0]?.body.length).toBeGreaterThan(5_000_000);
  });
});
