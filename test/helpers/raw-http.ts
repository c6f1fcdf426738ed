/**
 * One HTTP/1.x request written byte for byte on a socket: request targets
 * that node:http's client refuses to send (a raw NUL, a backslash, an
 * absolute form) reach the server as a hostile client would send them.
 */
import { connect } from 'node:net';

export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export interface RawRequest {
  readonly method?: string;
  readonly target: string;
  /** Host header; null sends none. Default: 127.0.0.1:<port>. */
  readonly host?: string | null;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** HTTP/1.0 lets a request go without Host. */
  readonly version?: '1.0' | '1.1';
}

export function rawRequest(port: number, req: RawRequest): Promise<RawAnswer> {
  const host = req.host === undefined ? `127.0.0.1:${port}` : req.host;
  const body = req.body ?? '';
  const lines = [
    `${req.method ?? 'GET'} ${req.target} HTTP/${req.version ?? '1.1'}`,
    ...(host === null ? [] : [`Host: ${host}`]),
    'Connection: close',
    ...Object.entries(req.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    ...(body ? [`Content-Length: ${Buffer.byteLength(body)}`] : []),
  ];
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const cut = text.indexOf('\r\n\r\n');
      const head = (cut === -1 ? text : text.slice(0, cut)).split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '')?.[1] ?? 0);
      const headers = Object.fromEntries(head.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      let rest = cut === -1 ? '' : text.slice(cut + 4);
      if (headers['transfer-encoding'] === 'chunked') rest = rest.replace(/(?:^|\r\n)[0-9a-f]+\r\n/gi, '').replace(/\r\n$/, '');
      resolve({ status, headers, body: rest });
    });
    socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`, 'latin1');
  });
}
