/**
 * The load generator's side of the shim benchmark: one keep-alive undici
 * connection per target, requests sent one after another, each timed to its
 * first body byte and to its last.
 */
import { Client } from 'undici';

export interface Sample {
  /** Request start → last body byte, ms. */
  readonly total: number;
  /** Request start → first body byte, ms. */
  readonly ttfb: number;
  readonly bytes: number;
  readonly status: number;
}

export interface Target {
  readonly name: string;
  /** Path prefix before /v1/messages (the shim's /job/<token>, or ''). */
  readonly prefix: string;
  readonly client: Client;
}

export function openTarget(name: string, baseUrl: string): Target {
  const url = new URL(baseUrl);
  const client = new Client(url.origin, { pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 60_000, bodyTimeout: 60_000 });
  return { name, prefix: url.pathname.replace(/\/$/, ''), client };
}

export async function postMessages(target: Target, headers: Readonly<Record<string, string>>, body: Buffer): Promise<Sample> {
  const started = performance.now();
  const res = await target.client.request({
    method: 'POST',
    path: `${target.prefix}/v1/messages?beta=true`,
    headers: { ...headers, 'content-length': String(body.length) },
    body,
  });
  let ttfb: number | undefined;
  let bytes = 0;
  for await (const chunk of res.body) {
    ttfb ??= performance.now() - started;
    bytes += (chunk as Buffer).length;
  }
  const total = performance.now() - started;
  return { total, ttfb: ttfb ?? total, bytes, status: res.statusCode };
}
