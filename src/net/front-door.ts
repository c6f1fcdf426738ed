/**
 * The one front door of every local HTTP listener (MCP over HTTP, the
 * dashboard): the Host must name this server, a browser's Origin must be this
 * server, and the caller must hold the token. A web page that rebinds its own
 * name to 127.0.0.1 still sends its own Host and Origin, so it stops here.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { tokenMatches } from './token.js';

export interface Refusal {
  readonly status: 400 | 401 | 403 | 404 | 405 | 414;
  readonly message: string;
}

export interface FrontDoorOptions {
  /** The address the listener is bound to. */
  readonly bindHost: string;
  /** Host names the user configured on top (e.g. a name in /etc/hosts, a proxy in front). */
  readonly extraHostNames?: readonly string[];
}

/** Plain host[:port] characters only: no userinfo, path or whitespace to smuggle a second meaning in. */
const HOST_SYNTAX = /^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/;

export function isLoopbackAddress(address: string): boolean {
  return address === 'localhost' || address === '::1' || (isIP(address) === 4 && address.startsWith('127.'));
}

const isWildcard = (address: string): boolean => address === '0.0.0.0' || address === '::';

/** The names a request may carry in Host for a listener bound to `bindHost`. */
export function allowedHostNames(options: FrontDoorOptions): string[] {
  const names = new Set<string>();
  if (isLoopbackAddress(options.bindHost) || isWildcard(options.bindHost)) for (const n of ['127.0.0.1', 'localhost', '[::1]']) names.add(n);
  if (!isWildcard(options.bindHost)) names.add(isIP(options.bindHost) === 6 ? `[${options.bindHost}]` : options.bindHost.toLowerCase());
  for (const n of options.extraHostNames ?? []) names.add(n.toLowerCase());
  return [...names];
}

/** `host:port` → [name, port], or undefined when it is not a plain host header. */
function splitHost(value: string): [string, string] | undefined {
  if (!HOST_SYNTAX.test(value)) return undefined;
  const colon = value.lastIndexOf(':');
  if (colon === -1 || value.endsWith(']')) return [value.toLowerCase(), ''];
  return [value.slice(0, colon).toLowerCase(), value.slice(colon + 1)];
}

export interface FrontDoor {
  /** Host and Origin: undefined when the request may go on to the token check. */
  checkAddress(req: IncomingMessage): Refusal | undefined;
  /** Constant-time token check, with the message a refused caller needs. */
  checkToken(presented: string | null | undefined): Refusal | undefined;
  /** What a person reads about where this server answers, e.g. `127.0.0.1:8765 or localhost:8765`. */
  describe(): string;
}

/**
 * `port` is read per request: listeners learn their port only after listen(0).
 * `tokenHint` ends the 401 message: where the caller finds the token.
 */
export function createFrontDoor(options: FrontDoorOptions, port: () => number, token: string, tokenHint: () => string): FrontDoor {
  const names = allowedHostNames(options);
  const matches = (value: string): boolean => {
    const parts = splitHost(value);
    return parts !== undefined && names.includes(parts[0]) && parts[1] === String(port());
  };
  const describe = (): string => names.map((n) => `${n}:${port()}`).join(' or ');
  return {
    describe,
    checkAddress(req) {
      const host = req.headers.host;
      if (host === undefined || !matches(host)) {
        return {
          status: 403,
          message: `forbidden: Host ${JSON.stringify(host ?? '')} is not this server (${describe()}); requests through another name are refused so a web page cannot reach it by DNS rebinding. Name it with --allowed-host if you reach it through another name on purpose.`,
        };
      }
      const origin = req.headers.origin;
      if (origin === undefined) return undefined; // not a browser, or a same-origin GET
      let originHost: string | undefined;
      try {
        const url = new URL(origin);
        if (url.protocol === 'http:' && url.pathname === '/' && url.username === '' && url.password === '') originHost = url.host;
      } catch {
        originHost = undefined; // "null" and other non-URLs
      }
      if (originHost === undefined || !matches(originHost)) {
        return { status: 403, message: `forbidden: cross-site Origin ${JSON.stringify(origin)}; only pages served by this server (${describe()}) may call it.` };
      }
      return undefined;
    },
    checkToken(presented) {
      if (tokenMatches(presented, token)) return undefined;
      const what = presented === undefined || presented === null || presented === '' ? 'no token' : 'wrong token';
      return { status: 401, message: `unauthorized: wrong or missing token (this request has ${what}). ${tokenHint()}` };
    },
  };
}

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '');
  return match?.[1];
}
