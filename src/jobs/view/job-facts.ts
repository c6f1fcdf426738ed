/**
 * The facts of a job, computed once from its record for every audience: the
 * calling model's text (mcp/job-view.ts), a person's (person-words.ts: the
 * CLI's report and `show`, the dashboard's job page, the live status area of
 * `localagents run`) and the list rows of list_jobs, the CLI's table and the dashboard.
 * Renderers word the facts; they do not read the record for anything this
 * module knows.
 *
 * Adding a fact: its value type in JobFactValues, its place in FACT_ORDER, how
 * it is read in jobFacts, and one entry in each renderer — FactRenderer makes
 * every renderer handle every fact, so no audience can silently miss one.
 */
import { inFlightLine } from './in-flight-line.js';
import { elapsedSeconds, FINISHED, type BackendErrorEvent, type InFlightRequest, type JobRecord, type MoveRecord, type OutageRecord, type JobStatus, type WorktreeInfo } from '../record/job-record.js';
import { describeSandboxRecord } from '../sandbox/record.js';
import { verificationLine } from '../verify/record.js';
import { outcomeLine } from '../record/outcome.js';
import { outageWords } from '../../shim/outage-hold.js';
import { explanationText } from '../../shim/translate/error-catalogue.js';

export interface JobFactValues {
  readonly headline: {
    readonly id: string;
    readonly status: JobStatus;
    readonly finished: boolean;
    readonly elapsedS: number;
    /** Served model, else the one asked for; undefined before one is chosen. */
    readonly model: string | undefined;
    readonly endpoint: string | undefined;
  };
  /** The verify command's outcome, what every view leads with ("verify `npm test`: passed on attempt 2 of 3"). */
  readonly verification: string;
  /** Why this endpoint (pinned, preferred, warm cache, most free capacity…). */
  readonly endpoint_reason: string;
  readonly queue: { readonly position: number; readonly waitingFor: string };
  readonly work: {
    readonly turns: number;
    readonly toolCalls: number;
    readonly requests: number;
    /** Evaluated prompt tokens, cached prompt tokens, generated tokens (the record's usage: filled in when the session ends). */
    readonly tokens: { readonly input: number; readonly cached: number; readonly output: number };
  };
  /** The usage summary's line (src/usage/job-summary.ts), when the caller read the job's logs for it. */
  readonly usage: string;
  /** What became of a finished job's work (merged, discarded, followed up, …, or unknown) and its verify verdict. */
  readonly outcome: string;
  /** What it did last, while it is not finished. */
  readonly last_activity: string;
  /** The outage of its server the job waits out now, in words ("gpu is loading its model, 1 min 40 s so far; waiting up to 10 min"). */
  readonly outage_wait: string;
  /** Why its last try to move to another endpoint serving its model found none (defaults.failover). */
  readonly failover_blocked: string;
  /** One line (plus flag lines) per open backend request. */
  readonly in_flight: readonly string[];
  /** Every outage the job waited through: where, when, how it ended, what the probes saw. */
  readonly outages: readonly OutageRecord[];
  /** Every move to another endpoint serving its model: from, to, when and why. */
  readonly moves: readonly MoveRecord[];
  readonly backend_error: { readonly count: number; readonly last: BackendErrorEvent; readonly stillRunning: boolean };
  readonly result: string;
  readonly error: { readonly message: string; readonly code: string | undefined };
  readonly files: readonly string[];
  /** Images and documents the shim turned into text for a model without vision. */
  readonly media: { readonly images: number; readonly documentsExtracted: number; readonly documentsFailed: number };
  readonly sandbox: string;
  readonly worktree: WorktreeInfo & { readonly finished: boolean };
  readonly warnings: readonly string[];
  /** The folder with transcript.txt, events.jsonl and requests.jsonl. */
  readonly logs: string;
  /** Interrupted with a session to continue. */
  readonly resumable: { readonly id: string };
}

export type FactKey = keyof JobFactValues;

/** Present only when the record has the fact. */
export type JobFacts = { readonly [K in FactKey]?: JobFactValues[K] } & Pick<JobFactValues, 'headline' | 'work'>;

/** The order every rendering follows. */
export const FACT_ORDER: readonly FactKey[] = [
  'headline',
  'verification',
  'endpoint_reason',
  'queue',
  'work',
  'usage',
  'outcome',
  'last_activity',
  'outage_wait',
  'failover_blocked',
  'in_flight',
  'outages',
  'moves',
  'backend_error',
  'result',
  'error',
  'files',
  'worktree',
  'media',
  'sandbox',
  'warnings',
  'logs',
  'resumable',
];

/** How one audience words each fact (an empty list: nothing to say for this value). */
export type FactRenderer = { readonly [K in FactKey]: (value: JobFactValues[K]) => readonly string[] };

const nonEmpty = <T>(list: readonly T[] | undefined): readonly T[] | undefined => (list !== undefined && list.length > 0 ? list : undefined);

/** `usageLine`: the job's usage summary line, for views that read its logs (show, job_status, the job page). */
export function jobFacts(record: JobRecord, usageLine?: string, now: Date = new Date()): JobFacts {
  const finished = FINISHED.has(record.status);
  const inFlight = nonEmpty(record.in_flight);
  const lastError = record.backend_errors?.at(-1);
  const media = record.media_replaced;
  const facts: { -readonly [K in FactKey]?: JobFactValues[K] } = {
    verification: record.verification && verificationLine(record.verification),
    endpoint_reason: record.model.endpoint_reason,
    queue: record.queue && { position: record.queue.position, waitingFor: record.queue.waiting_for },
    usage: usageLine,
    outcome: outcomeLine(record),
    last_activity: finished ? undefined : record.last_activity?.what,
    outage_wait: record.outage_wait && outageWords(record.outage_wait, now),
    in_flight: inFlight?.map((r) => inFlightLine(r, now)),
    outages: nonEmpty(record.outages),
    moves: nonEmpty(record.moves),
    failover_blocked: record.failover_blocked,
    backend_error: lastError && { count: record.backend_errors?.length ?? 1, last: lastError, stillRunning: record.status === 'running' },
    result: record.result || undefined,
    error: record.error ? { message: record.error, code: record.error_code } : undefined,
    files: nonEmpty(record.files_touched),
    media: media && media.images + media.documents_extracted + media.documents_failed > 0 ? { images: media.images, documentsExtracted: media.documents_extracted, documentsFailed: media.documents_failed } : undefined,
    sandbox: record.sandbox && describeSandboxRecord(record.sandbox),
    worktree: record.worktree && { ...record.worktree, finished },
    warnings: nonEmpty(record.warnings),
    logs: record.log_dir,
    resumable: record.status === 'interrupted' && record.session_id !== undefined ? { id: record.id } : undefined,
  };
  return {
    ...facts,
    headline: { id: record.id, status: record.status, finished, elapsedS: elapsedSeconds(record, now), model: record.model.served ?? record.model.requested, endpoint: record.model.endpoint },
    work: {
      turns: record.num_turns,
      toolCalls: record.tool_calls,
      requests: record.requests,
      tokens: { input: record.usage.input_tokens, cached: record.usage.cache_read_input_tokens, output: record.usage.output_tokens },
    },
  };
}

/** One fact's lines in one rendering. */
export interface FactLines {
  readonly fact: FactKey;
  readonly lines: readonly string[];
}

/** The facts in FACT_ORDER, each worded by `renderer`, keyed (a fact worded as no lines is left out). */
export function renderFactsByKey(facts: JobFacts, renderer: FactRenderer): FactLines[] {
  const out: FactLines[] = [];
  for (const key of FACT_ORDER) {
    const value = facts[key];
    // The renderer's entry for `key` takes that key's value; TypeScript cannot follow the pairing through the loop.
    const lines = value === undefined ? [] : (renderer[key] as (v: typeof value) => readonly string[])(value);
    if (lines.length > 0) out.push({ fact: key, lines });
  }
  return out;
}

/** The facts in FACT_ORDER, each worded by `renderer`. */
export function renderFacts(facts: JobFacts, renderer: FactRenderer): string[] {
  return renderFactsByKey(facts, renderer).flatMap((f) => f.lines);
}

/** The last backend error in one line, the same for every audience. */
function backendErrorLine(e: JobFactValues['backend_error']): string {
  const which = e.count === 1 ? 'the only one' : `${e.count} recorded`;
  return `last backend error (${which}), request ${e.last.request ?? '?'} at ${e.last.at.slice(11, 19)}, HTTP ${e.last.status}: ${e.last.message}`;
}

/** One outage the job waited through, the same for every audience. */
function outageLine(o: OutageRecord): string {
  return `outage of ${o.endpoint} ${o.started_at.slice(11, 19)}–${o.ended_at.slice(11, 19)} (${o.outcome}): it ${o.saw.join(', then ')}`;
}

/** One move to another endpoint, the same for every audience: "moved from gpu-a to gpu-b at 12:00:05 after gpu-a had not served …". */
function moveLine(m: MoveRecord): string {
  return `moved from ${m.from} to ${m.to} at ${m.at.slice(11, 19)} after ${m.reason}; ${m.to} serves ${m.served}${m.context === undefined ? '' : ` (${m.context}-token window)`}`;
}

function mediaLine(m: JobFactValues['media']): string {
  const failed = m.documentsFailed > 0 ? ` (${m.documentsFailed} could not be read)` : '';
  return `media turned into text for the model: ${m.images} images, ${m.documentsExtracted + m.documentsFailed} documents${failed}`;
}

/** One row of a job list (list_jobs, `localagents jobs`, the dashboard's table): built from the record alone, so a list never opens a job's logs. */
export interface JobListRow {
  readonly id: string;
  readonly status: string;
  readonly task: string;
  readonly model: string | undefined;
  readonly endpoint: string | undefined;
  readonly created_at: string;
  readonly started_at: string | undefined;
  readonly finished_at: string | undefined;
  readonly turns: number;
  readonly tool_calls: number;
  readonly files_touched: number;
  readonly requests: number;
  /** Output tokens per second of the job's open requests now (running jobs only). */
  readonly tokens_per_s: number | undefined;
  /** Prompt tokens the server has read so far for the job's open requests, while it reads them: the job page follows it. */
  readonly prompt_read_tokens: number | undefined;
  readonly queue_position: number | undefined;
  readonly last_activity: string | undefined;
  /** While the job waits out its server's outage: "gpu is loading its model, 1 min 40 s so far; waiting up to 10 min". */
  readonly waiting_for_server: string | undefined;
  readonly error: string | undefined;
}

/** The sum of one number over the open requests that have it. */
function sumOpen(record: JobRecord, value: (r: InFlightRequest) => number | undefined): number | undefined {
  const values = (record.in_flight ?? []).map(value).filter((v): v is number => v !== undefined);
  return values.length === 0 ? undefined : Math.round(values.reduce((a, b) => a + b, 0));
}

/**
 * The task is whole (renderers clip it to their width); the error is its first 300 characters. No elapsed
 * time: the dashboard resends a row only when it changed, and a clock would change every running row each tick
 * (only a job waiting out an outage carries one, in waiting_for_server: how long matters then).
 */
export function jobListRow(record: JobRecord): JobListRow {
  return {
    id: record.id,
    status: record.status,
    task: record.task_preview,
    model: record.model.served ?? record.model.requested,
    endpoint: record.model.endpoint,
    created_at: record.created_at,
    started_at: record.started_at,
    finished_at: record.finished_at,
    turns: record.num_turns,
    tool_calls: record.tool_calls,
    files_touched: record.files_touched.length,
    requests: record.requests,
    tokens_per_s: sumOpen(record, (r) => r.tokens_per_s),
    prompt_read_tokens: sumOpen(record, (r) => r.prompt_read_tokens),
    queue_position: record.queue?.position,
    last_activity: record.last_activity?.what,
    waiting_for_server: record.outage_wait && outageWords(record.outage_wait),
    error: record.error?.slice(0, 300),
  };
}

/**
 * The facts both audiences read in the same words; each renderer spreads these and words the rest
 * (the headline, the work line, the error's next step, the worktree, the logs, how to resume) its own way.
 */
export const SHARED_WORDS = {
  verification: (line) => [line],
  endpoint_reason: (reason) => [`endpoint: ${reason}`],
  queue: (q) => [`queued: position ${q.position}, waiting for ${q.waitingFor}`],
  usage: (line) => [line],
  outcome: (line) => [line],
  last_activity: (what) => [`last activity: ${what}`],
  outage_wait: (words) => [`waiting for the model server: ${words}`],
  in_flight: (lines) => lines,
  outages: (list) => list.map(outageLine),
  moves: (list) => list.map(moveLine),
  failover_blocked: (why) => [`not moved to another endpoint: ${why}`],
  backend_error: (e) => [backendErrorLine(e), ...(e.stillRunning ? [`  ${explanationText(e.last.explanation)}`] : [])],
  result: (result) => [`result: ${result}`],
  files: (files) => [`files touched: ${files.join(', ')}`],
  media: (m) => [mediaLine(m)],
  sandbox: (s) => [`sandbox: ${s}`],
  warnings: (warnings) => warnings.map((w) => `warning: ${w}`),
} satisfies Partial<FactRenderer>;
