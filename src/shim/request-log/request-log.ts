/**
 * The per-job request log: requests.jsonl (one line per backend request) and,
 * when dumping, requests_full.jsonl with the normalised body. Append-only,
 * owner-readable, one open stream per file. Callers pass entries built from
 * bodies, never from headers; a key a backend echoed into one is redacted here.
 */
import type { WriteStream } from 'node:fs';
import { once } from 'node:events';
import { privateAppendStream } from '../../coord/private-files.js';
import { redactDeep, redactSecrets } from '../../secrets/redact.js';
import type { ErrorSource } from '../translate/error-catalogue.js';
import type { MediaReplacement } from '../rewrite/images-as-text.js';

export interface Usage {
  input_tokens?: number | undefined;
  output_tokens?: number | undefined;
  cache_read_input_tokens?: number | undefined;
  cache_creation_input_tokens?: number | undefined;
}


export interface RequestLogEntry {
  readonly t: string;
  /** 1-based number of the /v1/messages request within the job (the live view's `request`). */
  readonly request?: number | undefined;
  readonly path: string;
  readonly method: string;
  readonly model: string | undefined;
  readonly messages: number | undefined;
  readonly tools: number | undefined;
  readonly stream: boolean;
  readonly request_bytes: number;
  readonly status: number;
  readonly ttfb_ms: number | undefined;
  readonly total_ms: number;
  readonly usage: Usage | undefined;
  readonly folded_system_messages: number;
  readonly rewrites: readonly string[];
  /** Images and documents the shim turned into text, each named by a key of its bytes (absent: none). */
  readonly media_replaced?: readonly MediaReplacement[] | undefined;
  /** What the backend said when we translated its answer (first 300 characters). */
  readonly original_error?: string | undefined;
  readonly error?: string | undefined;
  /** http: an error status; stream: an error event inside a 200 stream; cut: the stream broke off; connect: no answer; answer: a malformed 200. */
  readonly error_source?: ErrorSource | undefined;
  /** The backend's own status when the shim answered with another (503 Loading model → 529). */
  readonly backend_status?: number | undefined;
}

export interface RequestLog {
  write(entry: RequestLogEntry): void;
  /** Full normalised body; only called when dumping is on. */
  writeFull(t: string, path: string, body: string): void;
  readonly dumping: boolean;
  close(): Promise<void>;
}

export function createRequestLog(requestsPath: string, fullPath: string | undefined, onError: (err: Error) => void): RequestLog {
  let summary: WriteStream | undefined;
  let full: WriteStream | undefined;
  const open = (path: string): WriteStream => {
    const stream = privateAppendStream(path);
    stream.on('error', onError);
    return stream;
  };
  return {
    dumping: fullPath !== undefined,
    write(entry) {
      summary ??= open(requestsPath);
      summary.write(`${JSON.stringify(redactDeep(entry))}\n`);
    },
    writeFull(t, path, body) {
      if (fullPath === undefined) return;
      full ??= open(fullPath);
      // The body is already JSON; splice it in rather than parse and re-serialise 50 kB.
      full.write(`{"t":${JSON.stringify(t)},"path":${JSON.stringify(path)},"body":${redactSecrets(body)}}\n`);
    },
    async close() {
      await Promise.all(
        [summary, full].map(async (s) => {
          if (s === undefined || s.destroyed) return;
          s.end();
          await once(s, 'close');
        }),
      );
    },
  };
}

/** A log that records nothing, for side uses (local_complete without a job folder, benchmarks). */
export const nullRequestLog: RequestLog = {
  dumping: false,
  write() {},
  writeFull() {},
  close: () => Promise.resolve(),
};
