/**
 * Connections to backends: one keep-alive pool per origin, the header rules
 * for what crosses the shim in each direction, and the size limit on a
 * backend's error body.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Pool } from 'undici';
import { ACCEPT_IDENTITY } from '../backends/answer-body.js';
import { authHeaders } from '../backends/http-get.js';

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

export interface UpstreamPools {
  pool(origin: string): Pool;
  close(): Promise<void>;
}

export function createUpstreamPools(): UpstreamPools {
  const pools = new Map<string, Pool>();
  return {
    pool(origin) {
      let pool = pools.get(origin);
      if (pool === undefined) {
        pool = new Pool(origin, {
          connections: 64,
          keepAliveTimeout: 30_000,
          // A slot queued inside llama-server sends nothing for minutes; Claude Code owns that timeout, not us.
          headersTimeout: 0,
          bodyTimeout: 0,
          connectTimeout: 10_000,
        });
        pools.set(origin, pool);
      }
      return pool;
    },
    async close() {
      await Promise.all([...pools.values()].map((p) => p.destroy()));
      pools.clear();
    },
  };
}
