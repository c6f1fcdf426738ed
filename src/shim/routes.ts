/**
 * What the job side sees of the shim: open a route for a job, get its base
 * URL, close it when the job ends. A closed route's token answers 404.
 */
import type { ModelWeights } from '../backends/types.js';
import type { Endpoint } from '../config/schema.js';
import type { OutageEvents } from './outage-hold.js';
import type { RequestLog, RequestLogEntry } from './request-log/request-log.js';
import type { PerJobValue } from './rewrite/per-job-values.js';
import type { RequestProgress } from './progress/request-progress.js';

export interface RouteSpec {
  readonly jobId: string;
  readonly endpoint: Endpoint;
  /** The id the backend serves; every request's `model` is rewritten to it. */
  readonly servedModel: string;
  /** The weights the endpoint served it from when the job was placed (another file under the same id is another model). */
  readonly servedWeights?: ModelWeights | undefined;
  /** The backend's per-request window, when known (used to fit max_tokens on vLLM). */
  readonly context: number | undefined;
  /** The model sees images (probed, or models.yaml `vision`); otherwise the shim turns each image into a note. */
  readonly vision?: boolean | undefined;
  readonly log: RequestLog;
  /**
   * The job's own values Claude Code writes into its environment block (temp folder, settings folder), read at
   * each request: the job makes them after the route opens. The session id the shim takes from the request.
   */
  readonly perJobValues?: () => readonly PerJobValue[];
  /** Called after every request with what was logged, for live counters in the record. */
  readonly onRequest?: (entry: RequestLogEntry) => void;
  /** Called when a /v1/messages request opens, with its live progress (read it while it runs). */
  readonly onRequestStart?: (progress: RequestProgress) => void;
  /**
   * defaults.outage_wait_s: how long the job's requests are held while its endpoint is down, loading or
   * serving another model (0 or absent: answered at once, and Claude Code's own retries decide).
   */
  readonly outageWaitS?: number | undefined;
  /** How long one probe of the endpoint may take during an outage (defaults.probe_timeout_s). */
  readonly probeTimeoutS?: number | undefined;
  /** Whether a served id is the job's model (the menu entry's served_name glob, or the served id itself). */
  readonly sameModel?: ((id: string) => boolean) | undefined;
  /** The outage's live words and, when it is over, its report for the record. */
  readonly onOutage?: OutageEvents | undefined;
  /** defaults.failover: same_model — during an outage, the job may move to another endpoint (absent: it only waits). */
  readonly failover?: RouteFailover | undefined;
}

/** Where a route forwards to: the endpoint, the id it serves for the job, its window and whether it sees images. */
export interface RouteUpstream {
  readonly endpoint: Endpoint;
  readonly servedModel: string;
  /** The weights the new endpoint serves the model from, where it says (a later swap is told by them). */
  readonly servedWeights: ModelWeights | undefined;
  readonly context: number | undefined;
  readonly vision: boolean;
}

/** The outage a move is asked about: since when the endpoint has not served the job's model, and what was seen last. */
export interface MoveRequest {
  readonly from: string;
  readonly since: string;
  readonly saw: string;
}

/** A move the job side agreed to (its slot lease is already on the new endpoint), or why there is none. */
export type MoveChoice = { readonly kind: 'moved'; readonly upstream: RouteUpstream } | { readonly kind: 'stay'; readonly why: string };

export interface RouteFailover {
  /** How long an outage lasts before a move is tried (defaults.failover_after_s); then again at every probe. */
  readonly afterS: number;
  move(request: MoveRequest): Promise<MoveChoice>;
}

export interface OpenRoute {
  /** http://127.0.0.1:PORT/job/<token>: give this to Claude Code as ANTHROPIC_BASE_URL. */
  readonly baseUrl: string;
  close(): void;
}

export interface Shim {
  open(spec: RouteSpec): Promise<OpenRoute>;
  close(): Promise<void>;
}
