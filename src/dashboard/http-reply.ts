/**
 * Small response helpers for the dashboard server. Every response carries
 * headers that keep the token and the data inside this page: no caching, no
 * referrer, no framing, and a CSP that allows only our own files.
 */
import type { ServerResponse } from 'node:http';
import { redactDeep, redactSecrets } from '../secrets/redact.js';

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(redactDeep(value));
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export function sendText(res: ServerResponse, status: number, raw: string): void {
  const text = redactSecrets(raw);
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendBody(res: ServerResponse, type: string, body: Buffer, headOnly: boolean): void {
  res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': type, 'content-length': body.length });
  res.end(headOnly ? undefined : body);
}
