/**
 * Whether a failed backend request went out on a kept-alive socket that the
 * server closed before sending a byte back. llama-server (cpp-httplib) answers
 * `Keep-Alive: timeout=5` and closes an idle socket after that; undici reuses
 * one up to 2 s before, yet a request can still meet a socket the server is
 * closing at that moment: it fails with "other side closed" (UND_ERR_SOCKET),
 * ECONNRESET or EPIPE before a byte came back, the server having closed the
 * socket instead of taking the request. Such a request may be sent again; a
 * fresh connection's failure (an outage), or one after answer bytes, may not.
 *
 * undici does not say which socket a request used, so this reads its
 * diagnostics channels: `undici:client:sendHeaders` (request, socket: the
 * socket carried an earlier request, and how many bytes it had read by then)
 * and `undici:request:error` (request, error: nothing was read since). Kept in
 * weak maps, so nothing outlives its request.
 */
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

interface Sent {
  readonly socket: Socket;
  readonly reused: boolean;
  readonly bytesRead: number;
}

/** How undici reports a connection that ended under a request. */
const SOCKET_ENDED = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

const sent = new WeakMap<object, Sent>();
const used = new WeakSet<Socket>();
const stale = new WeakSet<object>();
let watching = false;

function onSendHeaders(message: unknown): void {
  const { request, socket } = message as { request: object; socket: Socket };
  sent.set(request, { socket, reused: used.has(socket), bytesRead: socket.bytesRead });
  used.add(socket);
}

function onRequestError(message: unknown): void {
  const { request, error } = message as { request: object; error: unknown };
  const before = sent.get(request);
  if (before === undefined || !before.reused || before.socket.bytesRead !== before.bytesRead) return;
  const code = error !== null && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
  if (typeof code === 'string' && SOCKET_ENDED.has(code)) stale.add(error as object);
}

/** Starts reading undici's channels (once per process; the shim calls it when it makes its pools). */
export function watchStaleSockets(): void {
  if (watching) return;
  watching = true;
  subscribe('undici:client:sendHeaders', onSendHeaders);
  subscribe('undici:request:error', onRequestError);
}

/** The request failed on a reused socket before any byte came back: the server closed it instead of answering. */
export function failedOnStaleSocket(err: unknown): boolean {
  return err !== null && typeof err === 'object' && stale.has(err);
}
