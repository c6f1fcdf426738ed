/**
 * The requests.jsonl line of one request, written through a logger made when
 * the request arrives: it carries what every line of the request shares (when
 * it came, method and path, the body's facts, the shim's rewrites and notes),
 * so each way a request can end says only how it ended.
 */
import type { NormaliseNotes } from './body/normalise.js';
import { describeRewrites, type RequestFacts } from './body/request-entry.js';
import type { RequestLogEntry, Usage } from './request-log/request-log.js';
import type { ErrorSource } from './translate/error-catalogue.js';
import type { RouteSpec } from './routes.js';

/** How one request ended. */
export interface RequestOutcome {
  readonly status: number;
  readonly ttfb?: number | undefined;
  readonly usage?: Usage | undefined;
  /** A last note on this ending ("client closed the connection"). */
  readonly note?: string | undefined;
  /** What the backend said when the shim translated its answer (first 300 characters). */
  readonly original?: string | undefined;
  readonly error?: string | undefined;
  readonly errorSource?: ErrorSource | undefined;
  /** The backend's own status when the shim answered with another. */
  readonly backendStatus?: number | undefined;
}

/** What the body turned out to be, once read and rewritten. */
export interface RequestBodyFacts {
  readonly facts: RequestFacts | undefined;
  readonly notes: NormaliseNotes | undefined;
  /** The body's size as Claude Code sent it. */
  readonly bytes: number;
  /** The /v1/messages request's number within the route. */
  readonly request: number | undefined;
}

export interface RequestLogger {
  /** When the request arrived (ISO time), for requests_full.jsonl too. */
  readonly t: string;
  /** performance.now() at arrival: ttfb and total are measured from it. */
  readonly started: number;
  body(facts: RequestBodyFacts): void;
  /** Something the shim did to this request, kept for its line ("held 800 ms until …"). */
  note(text: string): void;
  write(outcome: RequestOutcome): void;
}

const hundredths = (ms: number): number => Math.round(ms * 100) / 100;

export function createRequestLogger(spec: RouteSpec, method: string, pathname: string): RequestLogger {
  const started = performance.now();
  const t = new Date().toISOString();
  let body: RequestBodyFacts = { facts: undefined, notes: undefined, bytes: 0, request: undefined };
  const notes: string[] = [];
  return {
    t,
    started,
    body(facts) {
      body = facts;
    },
    note(text) {
      notes.push(text);
    },
    write(outcome) {
      const { facts } = body;
      const entry: RequestLogEntry = {
        t,
        request: body.request,
        path: pathname,
        method,
        model: facts?.model,
        messages: facts?.messages,
        tools: facts?.tools,
        stream: facts?.stream ?? false,
        request_bytes: body.bytes,
        status: outcome.status,
        ttfb_ms: outcome.ttfb === undefined ? undefined : hundredths(outcome.ttfb),
        total_ms: hundredths(performance.now() - started),
        usage: outcome.usage,
        folded_system_messages: body.notes?.foldedSystemMessages ?? 0,
        rewrites: [...describeRewrites(body.notes), ...notes, ...(outcome.note === undefined ? [] : [outcome.note])],
        media_replaced: body.notes?.mediaReplaced?.length ? body.notes.mediaReplaced : undefined,
        original_error: outcome.original,
        error: outcome.error,
        error_source: outcome.error === undefined ? undefined : outcome.errorSource,
        backend_status: outcome.backendStatus !== undefined && outcome.backendStatus !== outcome.status ? outcome.backendStatus : undefined,
      };
      spec.log.write(entry);
      spec.onRequest?.(entry);
    },
  };
}
