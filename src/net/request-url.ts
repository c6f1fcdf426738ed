/**
 * The request target of every local HTTP listener (the dashboard, MCP over
 * HTTP), read strictly before any route sees it: a target that is not one
 * plain path and one plain query comes back as a refusal that says what was
 * wrong, never as a thrown URIError or a path that `new URL` quietly
 * normalised (`/a/%2e%2e/b` is `/b` to WHATWG, a traversal to us).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { bearerToken, type Refusal } from './front-door.js';

/** Far above any URL these servers print (a 64-character token, a job id), far below Node's 16 KiB header limit. */
export const MAX_TARGET_BYTES = 2048;

export interface RequestTarget {
  /** The path as sent, e.g. `/api/jobs/20261129-111500-7gk2mq4xrz9d`. */
  readonly path: string;
  /** The path's segments, percent-decoded; `/` has none. */
  readonly segments: readonly string[];
  /** Each query parameter once, decoded. */
  readonly query: ReadonlyMap<string, string>;
}

const bad = (message: string): Refusal => ({ status: 400, message: `bad request: ${message}` });

/** Control characters (NUL included) and DEL; a space never survives Node's parser, a tab might. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

const shown = (text: string): string => JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);

function decode(text: string, where: string): string | Refusal {
  let value: string;
  try {
    value = decodeURIComponent(text);
  } catch {
    return bad(`${where} ${shown(text)} has a malformed percent-escape (each % must start a UTF-8 sequence of %XX bytes)`);
  }
  if (CONTROL.test(value)) return bad(`${where} ${shown(text)} holds a NUL or another control character`);
  return value;
}

export const isRefusal = (value: unknown): value is Refusal => typeof value === 'object' && value !== null && 'status' in value;

function segmentsOf(path: string): string[] | Refusal {
  if (path === '/') return [];
  const segments: string[] = [];
  for (const raw of path.slice(1).split('/')) {
    if (raw === '') return bad(`the path ${shown(path)} has an empty segment (a doubled or trailing /)`);
    const value = decode(raw, 'the path segment');
    if (isRefusal(value)) return value;
    if (value === '.' || value === '..') return bad(`the path ${shown(path)} climbs with "${value}"; paths here never hold . or .. segments`);
    if (value.includes('/') || value.includes('\\')) return bad(`the path segment ${shown(raw)} holds an encoded / or \\`);
    segments.push(value);
  }
  return segments;
}

function queryOf(search: string): Map<string, string> | Refusal {
  const query = new Map<string, string>();
  if (search === '') return query;
  for (const pair of search.split('&')) {
    if (pair === '') continue;
    const cut = pair.indexOf('=');
    const key = decode((cut === -1 ? pair : pair.slice(0, cut)).replace(/\+/g, ' '), 'the query parameter');
    if (isRefusal(key)) return key;
    const value = decode(cut === -1 ? '' : pair.slice(cut + 1).replace(/\+/g, ' '), `the value of query parameter ${shown(key)}`);
    if (isRefusal(value)) return value;
    // Two values for one name: which one counts would be our guess; refuse instead.
    if (query.has(key)) return bad(`the query parameter ${shown(key)} appears more than once`);
    query.set(key, value);
  }
  return query;
}

/** The target of `req.url`, or what is wrong with it. */
export function parseRequestTarget(url: string | undefined): RequestTarget | Refusal {
  if (url === undefined || url === '') return bad('the request has no path');
  if (Buffer.byteLength(url) > MAX_TARGET_BYTES) return { status: 414, message: `URI too long: the request target is ${Buffer.byteLength(url)} bytes; this server takes at most ${MAX_TARGET_BYTES}` };
  if (!url.startsWith('/')) return bad(`the request target ${shown(url)} is not a path starting with /`);
  if (CONTROL.test(url) || url.includes('#')) return bad(`the request target holds a control character or a #`);
  const cut = url.indexOf('?');
  const path = cut === -1 ? url : url.slice(0, cut);
  if (path.includes('\\')) return bad(`the path ${shown(path)} holds a backslash; paths here use / only`);
  const segments = segmentsOf(path);
  if (isRefusal(segments)) return segments;
  const query = queryOf(cut === -1 ? '' : url.slice(cut + 1));
  if (isRefusal(query)) return query;
  return { path, segments, query };
}

/**
 * The token a request presents. `inQuery`: the listener's own URLs carry it in
 * `?token=` (the dashboard page); otherwise it belongs in `Authorization:
 * Bearer` alone, because a URL ends up in logs and shell history.
 */
export function presentedToken(req: IncomingMessage, target: RequestTarget, inQuery: boolean): string | undefined | Refusal {
  const header = bearerToken(req);
  const query = target.query.get('token');
  if (query === undefined) return header;
  if (!inQuery) return bad('the token goes in the Authorization: Bearer header, not in the URL (a URL ends up in logs and shell history)');
  if (header !== undefined && header !== query) return bad('the request carries two different tokens, one in ?token= and one in Authorization; send one');
  return query;
}

/**
 * For a request Node's parser refused before any handler ran (a raw NUL, a
 * header too large): the same kind of words instead of Node's empty 400.
 */
export function answerUnparsable(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) return void socket.destroy();
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const text = tooLarge
    ? 'request header fields too large: send a shorter URL and fewer headers\n'
    : `bad request: this is not an HTTP request this server can read (${err.code ?? 'parse error'}: a control character, a malformed request line or header)\n`;
  const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
  socket.end(`HTTP/1.1 ${status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
}
