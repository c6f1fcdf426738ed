/**
 * A model server as an attacker (or a broken proxy) would run it, on
 * 127.0.0.1: each path answers with whatever a test sets, and every request it
 * got is kept so a test can prove a path was never reached.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

export interface HostileServer {
  readonly url: string;
  readonly seen: SeenRequest[];
  /** Answer `METHOD /path` (query ignored) with `handler`; unset paths answer 404. */
  on(route: string, handler: Handler): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startHostileServer(): Promise<HostileServer> {
  const handlers = new Map<string, Handler>();
  const seen: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body });
      const handler = handlers.get(`${req.method ?? 'GET'} ${(req.url ?? '/').split('?')[0] ?? '/'}`);
      if (handler) handler(req, res, body);
      else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}');
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    on: (route, handler) => handlers.set(route, handler),
    reset() {
      handlers.clear();
      seen.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Writes `piece` forever (until the client leaves), as fast as the client reads. */
export function endless(res: ServerResponse, head: string, piece: string): void {
  const chunk = Buffer.from(piece.repeat(Math.max(1, Math.floor(65536 / piece.length))));
  res.write(head);
  const more = (): void => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', more);
  };
  res.on('close', () => res.removeAllListeners('drain'));
  more();
}

export function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}
