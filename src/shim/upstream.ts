/**
 * Connections to backends: one keep-alive pool per origin, the header rules
 * for what crosses the shim in each direction, and the limits on what comes
 * back from a backend's error body (its size, and our key in it).
 */
import { Pool, type Dispatcher } from 'undici';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

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
  if (apiKey !== undefined) {
    // llama.cpp reads either header, vLLM only Bearer.
    out.authorization = `Bearer ${apiKey}`;
    out['x-api-key'] = apiKey;
  }
  return out;
}

/**
 * A backend, or a proxy in front of it, may quote our credentials back in an
 * error; the text goes on to Claude Code, the transcript and requests.jsonl, so
 * the key stops here. Keys under 8 characters guard nothing worth mangling every
 * message for.
 */
export function redactKey(text: string, apiKey: string | undefined): string {
  return apiKey === undefined || apiKey.length < 8 ? text : text.split(apiKey).join('[redacted]');
}

/**
 * A body read up to `max` bytes; the rest is not read, and the connection is
 * dropped. A body the backend cuts short gives what arrived: for an error
 * answer that is still the best account of what went wrong.
 */
export async function readCapped(body: Dispatcher.ResponseData['body'], max: number): Promise<string> {
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

export function responseHeadersForClient(upstream: Record<string, string | string[] | undefined>): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(upstream)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
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
