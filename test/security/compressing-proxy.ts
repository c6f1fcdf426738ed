/**
 * A proxy in front of a model server that compresses every answer, whatever
 * the request's accept-encoding says (as some gateways do). Streams stay
 * streams: each chunk is flushed through the encoder as it comes.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { pipeline, Transform } from 'node:stream';
import * as zlib from 'node:zlib';
import { request } from 'undici';

export type Coding = 'gzip' | 'deflate' | 'br' | 'zstd';

export interface CompressingProxy {
  readonly url: string;
  /** The accept-encoding of every request the proxy got, in order. */
  readonly acceptEncodings: Array<string | undefined>;
  /** Answers sent compressed. */
  compressed: number;
  close(): Promise<void>;
}

/**
 * A valid zstd frame holding `data` in raw (stored) blocks: enough to exercise
 * a zstd decoder without a zstd encoder, which Node 20 lacks.
 */
export function zstdStored(data: Buffer): Buffer {
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), Buffer.from([0x00, 10 << 3])]; // magic; no content size, 1 MiB window
  const max = 128 * 1024;
  for (let at = 0; at === 0 || at < data.length; at += max) {
    const block = data.subarray(at, at + max);
    const last = at + max >= data.length ? 1 : 0;
    const header = (block.length << 3) | last; // block type 0 = raw
    parts.push(Buffer.from([header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff]), block);
  }
  return Buffer.concat(parts);
}

function encoder(coding: Coding): Transform {
  switch (coding) {
    case 'gzip':
      return zlib.createGzip({ flush: zlib.constants.Z_SYNC_FLUSH });
    case 'deflate':
      return zlib.createDeflate({ flush: zlib.constants.Z_SYNC_FLUSH });
    case 'br':
      return zlib.createBrotliCompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH });
    case 'zstd': {
      const chunks: Buffer[] = [];
      return new Transform({
        transform(chunk: Buffer, _enc, done) {
          chunks.push(chunk);
          done();
        },
        flush(done) {
          done(null, zstdStored(Buffer.concat(chunks)));
        },
      });
    }
  }
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startCompressingProxy(target: string, coding: Coding): Promise<CompressingProxy> {
  const sockets = new Set<Socket>();
  const proxy: CompressingProxy = { url: '', acceptEncodings: [], compressed: 0, close: () => Promise.resolve() };
  const server = createServer((req, res) => {
    proxy.acceptEncodings.push(req.headers['accept-encoding']);
    void (async () => {
      const body = await bodyOf(req);
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length' && k !== 'connection'));
      const method = req.method ?? 'GET';
      const up = await request(`${target}${req.url ?? '/'}`, { method: method as 'GET', headers: headers as Record<string, string>, body: method === 'GET' || method === 'HEAD' ? null : body });
      const out: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(k)) out[k] = v;
      out['content-encoding'] = coding;
      res.writeHead(up.statusCode, out);
      proxy.compressed++;
      pipeline(up.body, encoder(coding), res, () => undefined);
    })().catch(() => res.destroy());
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(proxy, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  });
}
