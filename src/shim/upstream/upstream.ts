/**
 * Connections to backends: one keep-alive pool per origin (and a connection of
 * its own for a resend), the header rules for what crosses the shim in each
 * direction, and the size limit on a backend's error body.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Client, Pool, type Dispatcher } from 'undici';
import { ACCEPT_IDENTITY } from '../../backends/answer-body.js';
import { authHeaders } from '../../backends/http-get.js';
import { watchStaleSockets } from './stale-socket.js';

/** Per RFC 9110 §7.6.1 these describe one connection, not the message. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
]);

/** Claude Code's credential is our per-job token; the backend gets the endpoint's own key instead. */
const CREDENTIALS = new Set(['authorization', 'x-api-key']);

export function requestHeadersForBackend(incoming: IncomingHttpHeaders, apiKey: string | undefined, bodyLength: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || HOP_BY_HOP.has(name) || CREDENTIALS.has(name)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  out['content-length'] = String(bodyLength);
  // Claude Code asks for gzip, br, zstd; the shim reads every answer (usage, errors), so it asks for plain bytes.
  out['accept-encoding'] = ACCEPT_IDENTITY;
  return { ...out, ...authHeaders(apiKey) };
}

/**
 * A body read up to `max` bytes; the rest is not read, and the connection is
 * dropped. A body the backend cuts short gives what arrived: for an error
 * answer that is still the best account of what went wrong.
 */
export async function readCapped(body: Readable, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const buf = chunk as Buffer;
      size += buf.length;
      if (size > max) {
        body.destroy();
        chunks.push(buf.subarray(0, Math.max(0, buf.length - (size - max))));
        break;
      }
      chunks.push(buf);
    }
  } catch {
    // cut mid-body (by the backend, or because our client left): keep what arrived
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The backend's headers as Claude Code gets them; `decoded`: the shim undid the content-encoding (lengths are never forwarded). */
export function responseHeadersForClient(upstream: Record<string, string | string[] | undefined>, decoded: boolean): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(upstream)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    if (decoded && name === 'content-encoding') continue;
    out[name] = value;
  }
  return out;
}

/** One connection's settings, pooled or not. */
const CONNECTION = {
  keepAliveTimeout: 30_000,
  // A slot queued inside llama-server sends nothing for minutes; Claude Code owns that timeout, not us.
  headersTimeout: 0,
  bodyTimeout: 0,
  connectTimeout: 10_000,
} as const;

export interface UpstreamPools {
  pool(origin: string): Pool;
  /** One request on a connection of its own, closed once the answer has been read (a resend after a stale kept-alive socket). */
  requestFresh(origin: string, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  close(): Promise<void>;
}

export function createUpstreamPools(): UpstreamPools {
  watchStaleSockets();
  const pools = new Map<string, Pool>();
  const singles = new Set<Client>();
  return {
    pool(origin) {
      let pool = pools.get(origin);
      if (pool === undefined) {
        pool = new Pool(origin, { connections: 64, ...CONNECTION });
        pools.set(origin, pool);
      }
      return pool;
    },
    requestFresh(origin, options) {
      const client = new Client(origin, CONNECTION);
      singles.add(client);
      const answer = client.request(options);
      // Closing waits for the request to end (its body read or dropped), then ends the connection.
      void client.close().finally(() => singles.delete(client));
      return answer;
    },
    async close() {
      await Promise.all([...pools.values(), ...singles].map((p) => p.destroy()));
      pools.clear();
      singles.clear();
    },
  };
}
