/**
 * The shim in front of a hand-written backend stub: for backends that answer
 * what no real server should (HTML, broken JSON, endless streams). One route
 * is opened as a job would open it; its requests.jsonl entries are kept.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { BackendKind } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import type { RequestLog, RequestLogEntry } from '../../src/shim/request-log/request-log.js';
import { createShimServer, type ShimServer } from '../../src/shim/server.js';

export type StubHandler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface Stub {
  readonly url: string;
  /** Requests the stub received. */
  readonly hits: number;
  close(): Promise<void>;
}

export async function startStub(handler: StubHandler): Promise<Stub> {
  const sockets = new Set<Socket>();
  let hits = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      hits++;
      handler(req, res, body);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get hits() {
      return hits;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface ShimFront {
  /** The job's base URL: http://127.0.0.1:PORT/job/<token>. */
  readonly baseUrl: string;
  readonly shim: ShimServer;
  readonly entries: RequestLogEntry[];
  readonly logLines: string[];
  close(): Promise<void>;
}

export async function shimInFront(url: string, backend: BackendKind = 'llama.cpp'): Promise<ShimFront> {
  const logLines: string[] = [];
  const shim = createShimServer(createLogger('debug', (l) => logLines.push(l)));
  const entries: RequestLogEntry[] = [];
  const log: RequestLog = { dumping: false, write: (e) => entries.push(e), writeFull: () => undefined, close: () => Promise.resolve() };
  const route = await shim.open({ jobId: 'stub-job', endpoint: { name: 'stub', base_url: url, backend }, servedModel: 'stub-model', context: undefined, log });
  return {
    baseUrl: route.baseUrl,
    shim,
    entries,
    logLines,
    async close() {
      route.close();
      await shim.close();
    },
  };
}

/** A minimal Anthropic Messages request body, as Claude Code would send it. */
export function messagesBody(stream: boolean): string {
  return JSON.stringify({ model: 'claude-x', max_tokens: 100, stream, messages: [{ role: 'user', content: 'hi' }] });
}

export function postMessages(baseUrl: string, body: string = messagesBody(true), signal?: AbortSignal): Promise<Response> {
  return fetch(`${baseUrl}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'x' }, body, signal: signal ?? null });
}
