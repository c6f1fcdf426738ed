/**
 * One request through the shim, as every step of it sees it: the route it came
 * on, what the shim shares across requests, its logger, and the signal that
 * Claude Code gave up on it. Made when the request arrives (forward.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteOutage } from './outage-hold.js';
import type { PdfTextCache } from './body/pdf-text.js';
import type { PromptWatch } from './progress/prompt-watch.js';
import { createRequestLogger, type RequestLogger, type RequestOutcome } from './request-logger.js';
import type { RouteSpec } from './routes.js';
import type { TranslatedError } from './translate/anthropic-error.js';
import type { UpstreamPools } from './upstream/upstream.js';

export interface RouteState {
  /** Replaced (with endpointUrl) only when failover moves the job to another endpoint (server.ts). */
  spec: RouteSpec;
  /** The endpoint's base_url, parsed once for the route and again when it moves. */
  endpointUrl: URL;
  /** Prompt size of the last answered request: a cheap first guess of the next one's. */
  lastPrompt: { tokens: number; bytes: number } | undefined;
  /** /v1/messages requests opened on this route so far (numbers them). */
  messagesOpened: number;
  /** The job's wait for its server while it is down, loading or swapped (absent: defaults.outage_wait_s is 0). */
  readonly outage: RouteOutage | undefined;
}

/** What every request shares: connections to backends and the llama.cpp prompt watch. */
export interface ForwardShared {
  readonly pools: UpstreamPools;
  readonly promptWatch: PromptWatch;
  /** PDF text per content, so every turn of a session gets the same text. */
  readonly pdfTexts: PdfTextCache;
}

export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly route: RouteState;
  readonly shared: ForwardShared;
  readonly log: RequestLogger;
  readonly method: string;
  /** As Claude Code sent it after the route's prefix, query included (`/v1/messages?beta=true`). */
  readonly pathAndQuery: string;
  readonly pathname: string;
  readonly isMessages: boolean;
  readonly isCount: boolean;
  /**
   * Aborted when Claude Code gives up on the request (abort, retry, its job ended) before the
   * answer is complete: the backend request stops too, so the slot frees, also while unanswered.
   */
  readonly clientGone: AbortSignal;
  /** Starts watching for Claude Code leaving (once the body is read). */
  watchClient(): void;
  /** The answer is done with; Claude Code leaving no longer aborts anything. */
  settle(): void;
  /** Answers with `error` and logs how the request ended. */
  fail(error: TranslatedError, outcome: Omit<RequestOutcome, 'status' | 'error'>): void;
}

export function sendError(res: ServerResponse, error: TranslatedError): void {
  const body = JSON.stringify(error.body);
  res.writeHead(error.status, { ...error.headers, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export function openExchange(req: IncomingMessage, res: ServerResponse, pathAndQuery: string, route: RouteState, shared: ForwardShared): Exchange {
  const method = req.method ?? 'GET';
  const pathname = pathAndQuery.split('?', 1)[0] ?? '/';
  const gone = new AbortController();
  const onClose = (): void => {
    if (!res.writableFinished) gone.abort();
  };
  const log = createRequestLogger(route.spec, method, pathname);
  return {
    req,
    res,
    route,
    shared,
    log,
    method,
    pathAndQuery,
    pathname,
    isMessages: method === 'POST' && pathname === '/v1/messages',
    isCount: method === 'POST' && pathname === '/v1/messages/count_tokens',
    clientGone: gone.signal,
    watchClient: () => res.on('close', onClose),
    settle: () => res.off('close', onClose),
    fail(error, outcome) {
      res.off('close', onClose);
      sendError(res, error);
      log.write({ ...outcome, status: error.status, error: error.body.error.message });
    },
  };
}
