/**
 * Turns the OS / undici error of a failed probe into the one thing a user needs:
 * is the machine down, or is it up with nothing listening on that port?
 */
import type { EndpointState, HostState } from './types.js';

export interface ConnectFailure {
  readonly state: EndpointState;
  readonly hostState: HostState;
  readonly reason: string;
}

/** Error codes seen in `err.code` / `err.cause.code` from node:net and undici. */
function errorCodes(err: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    const name = (current as { name?: unknown }).name;
    if (typeof name === 'string') codes.push(name);
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

/**
 * `hostPort` is "host:port" as written in base_url; `timeoutS` the probe bound.
 * `connected` says whether a TCP connection was made before the failure.
 */
export function classifyConnectFailure(err: unknown, hostPort: string, timeoutS: number, connected = false): ConnectFailure {
  const codes = errorCodes(err);
  const has = (...wanted: string[]): boolean => wanted.some((c) => codes.includes(c));
  if (has('ECONNREFUSED')) {
    return {
      state: 'down',
      hostState: 'up',
      reason: `host is up, nothing listens on ${hostPort} (nothing started, or wrong port)`,
    };
  }
  if (has('EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN')) {
    return { state: 'down', hostState: 'down', reason: `host is down or unroutable (${hostPort})` };
  }
  if (has('ENOTFOUND', 'EAI_AGAIN')) {
    const host = hostPort.replace(/:\d+$/, '');
    return { state: 'down', hostState: 'unknown', reason: `the name ${host} does not resolve (typo in base_url, or DNS is down)` };
  }
  if (has('UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_RESPONSE_TIMEOUT') || (connected && has('TimeoutError', 'AbortError'))) {
    return {
      state: 'down',
      hostState: 'up',
      reason: `something accepted the connection on ${hostPort} but sent no answer within ${timeoutS} s (server hung or busy)`,
    };
  }
  if (has('UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT', 'TimeoutError', 'AbortError')) {
    return {
      state: 'down',
      hostState: 'unknown',
      reason: `no answer from ${hostPort} within ${timeoutS} s: unknown (host off, or a firewall drops packets)`,
    };
  }
  if (has('ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE')) {
    return { state: 'down', hostState: 'up', reason: `${hostPort} closed the connection without answering (not an HTTP server, or it crashed)` };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { state: 'down', hostState: 'unknown', reason: `could not reach ${hostPort}: ${message}` };
}
