/**
 * Answering a request before its body is read (a 413), so that the client gets
 * the answer. Closing a socket that still holds unread bytes makes the kernel
 * send RST, and an RST that reaches the client before it has read our answer
 * throws that answer away: the client sees EPIPE or ECONNRESET instead of the
 * 413. So: send the answer with `connection: close`, half-close our side, and
 * keep reading and dropping what the client still sends until it stops, for a
 * bounded time and size (a body that never ends cannot hold the socket), then
 * close. Apache calls this a lingering close.
 *
 * The answer is written on the socket itself: Node's response object would
 * destroy the socket as soon as the answer is written (that is the race).
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';

export interface LingerLimits {
  /** The longest the rest of the body is read after the answer. */
  readonly ms: number;
  /** The most of it that is read. */
  readonly bytes: number;
}

/** Ample for a client to read a small answer; a few dozen MiB pass loopback in well under that time. */
export const LINGER_LIMITS: LingerLimits = { ms: 2000, bytes: 64 * 1024 * 1024 };

export function answerThenLinger(
  req: IncomingMessage,
  answer: { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: string },
  limits: LingerLimits = LINGER_LIMITS,
): void {
  const socket = req.socket;
  if (socket.destroyed) return; // the client already left: nobody to answer
  const head = [
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}`,
    ...Object.entries(answer.headers).map(([name, value]) => `${name}: ${value}`),
    `content-length: ${Buffer.byteLength(answer.body)}`,
    'connection: close',
    '',
    '',
  ].join('\r\n');
  socket.end(head + answer.body); // FIN after the answer; the read side stays open (Node's HTTP server allows half-open sockets)

  let read = 0;
  const close = (): void => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(close, limits.ms);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > limits.bytes) close();
  });
  req.on('end', close); // the whole body came: nothing unread is left
  req.on('error', () => undefined); // the client hung up mid-body: the close below is all that is left to do
  socket.on('close', () => clearTimeout(timer));
  req.resume();
}
