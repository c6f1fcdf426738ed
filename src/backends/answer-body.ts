/**
 * Reading what a model server (or a proxy in front of it) answers, without
 * trusting it: every body read whole has a byte limit, a compressed body is
 * decoded (we ask for identity, but a proxy may compress anyway) and the limit
 * counts decoded bytes, and a redirect is reported, never followed. Shared by
 * the probes, the metrics snapshots and the shim.
 */
import { pipeline, type Readable } from 'node:stream';
import * as zlib from 'node:zlib';

/** Sent with every request to a backend: an answer we can read as it comes, and log usage from. */
export const ACCEPT_IDENTITY = 'identity';

type HeaderValue = string | readonly string[] | undefined;

/** A backend answer we refuse to read further; the message names the endpoint, the path and the reason. */
export class BackendAnswerError extends Error {
  constructor(
    message: string,
    readonly kind: 'too_large' | 'undecodable' | 'redirect' | 'cut',
  ) {
    super(message);
    this.name = 'BackendAnswerError';
  }
}

export function formatBytes(n: number): string {
  return n >= 1024 * 1024 && n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : n >= 1024 && n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`;
}

/** Drops a body we will not read. undici reports the drop as an 'error' on the body, which must not crash the process. */
export function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

function headerText(value: HeaderValue): string {
  return value === undefined ? '' : typeof value === 'string' ? value : value.join(', ');
}

/** zstd is in node:zlib from Node 22.15 / 23.8; on older Node a zstd answer is refused with a clear error. */
function zstdDecoder(): zlib.Gunzip | undefined {
  const create = (zlib as unknown as { createZstdDecompress?: () => zlib.Gunzip }).createZstdDecompress;
  return create?.();
}

function decoderFor(coding: string): NodeJS.ReadWriteStream | undefined {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    case 'zstd':
      return zstdDecoder();
    default:
      return undefined;
  }
}

/**
 * The body with its content-encoding undone (several codings are undone in
 * reverse order). Destroying the result destroys the source too. Throws
 * BackendAnswerError for a coding we cannot decode.
 */
export function decodedBody(body: Readable, contentEncoding: HeaderValue, what: string): Readable {
  const codings = headerText(contentEncoding)
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return body;
  const decoders: NodeJS.ReadWriteStream[] = [];
  for (const coding of codings.reverse()) {
    const decoder = decoderFor(coding);
    if (decoder === undefined) {
      discard(body);
      const why = coding === 'zstd' ? `this Node ${process.version} cannot decode zstd (Node 22.15 or later can)` : 'localagents cannot decode it';
      throw new BackendAnswerError(`${what} answered with content-encoding "${coding}" although localagents asked for identity, and ${why}; turn compression off in the proxy in front of the server`, 'undecodable');
    }
    decoders.push(decoder);
  }
  // pipeline() hands errors and destruction along the chain in both directions.
  return pipeline([body, ...decoders], () => undefined) as unknown as Readable;
}

/**
 * The whole (decoded) body, at most `limit` bytes. More throws BackendAnswerError
 * naming `what` and the limit, after dropping the connection: an endless body
 * never grows memory past the limit.
 */
export async function readWhole(body: Readable, limit: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) {
      body.destroy();
      throw new BackendAnswerError(`${what} sent more than ${formatBytes(limit)} (the limit for this answer); the server or a proxy in front of it is misbehaving`, 'too_large');
    }
    chunks.push(buf);
  }
  return chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks);
}

/**
 * For a 3xx answer: the message that names where it pointed. Only the origin is
 * named (a path or query may carry a token). Undefined for any other status.
 */
export function redirectMessage(status: number, location: HeaderValue, base: string, what: string): string | undefined {
  if (status < 300 || status > 399) return undefined;
  const target = headerText(location);
  let where: string;
  try {
    where = target === '' ? 'no Location' : new URL(target, base).origin;
  } catch {
    where = 'an unreadable Location';
  }
  return `${what} answered HTTP ${status}, a redirect to ${where}; localagents never follows a model server's redirects (the request and its key would go to another address): set base_url to the address the server answers on itself`;
}
