/**
 * An HTTP-aware relay built from the shim's own transport pieces (node:http
 * server, undici Pool, body read whole, response copied chunk by chunk) that
 * does nothing else: no JSON, no rewriting, no logging. The shim minus this
 * is the cost of the shim's own work; this minus the TCP relay is the cost of
 * speaking HTTP in Node at all.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { requestHeadersForBackend, responseHeadersForClient } from '../../src/shim/upstream/upstream.js';

export interface HttpRelay {
  readonly port: number;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer); // a request stream yields Buffers
  return chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks);
}

export async function startHttpRelay(targetPort: number): Promise<HttpRelay> {
  const pool = new Pool(`http://127.0.0.1:${targetPort}`, { connections: 64, keepAliveTimeout: 30_000, headersTimeout: 0, bodyTimeout: 0 });
  const relay = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req);
    const upstream = await pool.request({
      method: req.method === 'GET' ? 'GET' : 'POST',
      path: req.url ?? '/',
      headers: requestHeadersForBackend(req.headers, undefined, body.length),
      body: req.method === 'GET' ? null : body,
    });
    res.writeHead(upstream.statusCode, responseHeadersForClient(upstream.headers, false));
    for await (const chunk of upstream.body) if (!res.write(chunk as Buffer)) await once(res, 'drain'); // undici yields Buffers
    res.end();
  };
  const server: Server = createServer({ keepAliveTimeout: 60_000, requestTimeout: 0 }, (req, res) => {
    relay(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port, // TCP listener: an AddressInfo
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.destroy();
    },
  };
}
