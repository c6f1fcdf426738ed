/**
 * What a running job's record learns as it goes: per-request counters, usage
 * and backend errors from the shim, turns and files from the session's
 * messages, the in-flight requests, and one transcript line per event. The
 * record is saved at most 5 times a second while a session is busy.
 */
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import type { Endpoint } from '../config/schema.js';
import { redactSecrets } from '../secrets/redact.js';
import type { RequestLogEntry } from '../shim/request-log.js';
import type { RequestProgress } from '../shim/request-progress.js';
import { outageWords, type OutageEvents } from '../shim/outage-hold.js';
import { backendError, backendErrorLine } from './backend-error-event.js';
import type { BackendErrorEvent, JobRecord } from './job-record.js';
import { createLiveRequests, type LiveThresholds } from './live-requests.js';
import { createMediaTally } from './media-tally.js';
import { newProgress, observe, type SessionProgress } from './session-observer.js';

/** Backend errors kept in the record: the recent ones tell the story, a retry storm must not grow it without end. */
const MAX_BACKEND_ERRORS = 20;
/** Outages kept in the record: a flapping server must not grow it without end either. */
const MAX_OUTAGES = 20;
/** Coalesce: a busy session yields dozens of messages a second. */
const SAVE_EVERY_MS = 200;

export interface TrackedJob {
  record: JobRecord;
  readonly endpoint: Endpoint;
}

export interface TrackerOutputs {
  readonly transcript: { write(text: string): unknown };
  readonly events: { write(text: string): unknown };
  readonly save: (record: JobRecord) => Promise<void>;
  readonly thresholds: LiveThresholds;
}

export interface RunTracker {
  readonly progress: SessionProgress;
  update(patch: Partial<JobRecord>): void;
  /** One redacted transcript line. */
  line(text: string): void;
  scheduleSave(): void;
  /** Saves now; pending coalesced saves are folded in. */
  flush(): Promise<void>;
  onRequestStart(progress: RequestProgress): void;
  onRequest(entry: RequestLogEntry): void;
  onMessage(message: SDKMessage): void;
  lastBackendError(): BackendErrorEvent | undefined;
  /** The shim's outage wait: live words while it lasts, the report when it is over. */
  readonly outage: OutageEvents;
  /** Copies the counters into the record. */
  syncProgress(): void;
  /** Stops the in-flight refresh; the record no longer lists requests in flight. */
  stop(): void;
}

/** Whether a request log entry is a model request (not token counting or a probe). */
function isModelRequest(entry: RequestLogEntry): boolean {
  return entry.path.startsWith('/v1/messages') && !entry.path.startsWith('/v1/messages/count_tokens');
}

export function createRunTracker(job: TrackedJob, out: TrackerOutputs): RunTracker {
  const progress = newProgress();
  const live = createLiveRequests(out.thresholds);
  const backendErrors: BackendErrorEvent[] = [];
  const media = createMediaTally();
  // Summed from what the backend reported per request, so job_status shows tokens while the job runs
  // (Claude Code's own totals arrive only with its final result, and leave out compaction requests).
  const usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0 };
  let requests = 0;
  let firstCacheRead: number | undefined;
  let saveTimer: NodeJS.Timeout | undefined;
  let liveTimer: NodeJS.Timeout | undefined;

  const update = (patch: Partial<JobRecord>): void => {
    job.record = { ...job.record, ...patch };
  };
  const flush = async (): Promise<void> => {
    clearTimeout(saveTimer);
    saveTimer = undefined;
    await out.save(job.record);
  };
  const scheduleSave = (): void => {
    saveTimer ??= setTimeout(() => void flush(), SAVE_EVERY_MS);
  };
  const line = (text: string): void => {
    out.transcript.write(`${redactSecrets(text)}\n`);
  };
  /** The record's in_flight from the open requests, and a transcript line for each new flag. */
  const refreshLive = (): void => {
    const { inFlight, raised } = live.view();
    for (const { request, flag } of raised) line(`${new Date().toISOString().slice(11, 19)} request ${request}: ${flag.message}`);
    update({ in_flight: inFlight.length > 0 ? inFlight : undefined });
    if (live.openCount === 0) {
      clearInterval(liveTimer);
      liveTimer = undefined;
    }
    scheduleSave();
  };
  const syncProgress = (): void => {
    update({
      session_id: progress.sessionId ?? job.record.session_id,
      num_turns: progress.numTurns,
      tool_calls: progress.toolCalls,
      files_touched: progress.filesTouched,
      last_activity: progress.lastActivity,
      usage: { ...usage },
      requests,
      first_turn_cache_read_tokens: firstCacheRead,
    });
  };
  const countRequest = (entry: RequestLogEntry): void => {
    requests++;
    live.finished(entry);
    const replaced = media.add(entry);
    if (replaced !== undefined) update({ media_replaced: replaced });
    const failure = backendError(entry, job.endpoint.backend);
    if (failure !== undefined) {
      backendErrors.push(failure);
      if (backendErrors.length > MAX_BACKEND_ERRORS) backendErrors.shift();
      update({ backend_errors: [...backendErrors] });
      line(backendErrorLine(failure));
    }
    refreshLive();
    if (firstCacheRead === undefined && entry.usage) firstCacheRead = entry.usage.cache_read_input_tokens ?? 0;
    usage.input_tokens += entry.usage?.input_tokens ?? 0;
    usage.output_tokens += entry.usage?.output_tokens ?? 0;
    usage.cache_read_input_tokens += entry.usage?.cache_read_input_tokens ?? 0;
  };

  return {
    progress,
    update,
    line,
    scheduleSave,
    flush,
    syncProgress,
    onRequestStart(request) {
      live.open(request);
      liveTimer ??= setInterval(refreshLive, out.thresholds.refreshMs).unref();
      refreshLive();
    },
    onRequest(entry) {
      if (isModelRequest(entry)) countRequest(entry);
      syncProgress();
      scheduleSave();
    },
    onMessage(message) {
      out.events.write(`${redactSecrets(JSON.stringify(message))}\n`);
      if (message.type === 'system' && message.subtype === 'init' && job.record.claude_code) update({ claude_code: { ...job.record.claude_code, version: message.claude_code_version } });
      for (const l of observe(progress, message)) line(l);
      syncProgress();
      scheduleSave();
    },
    lastBackendError: () => backendErrors[backendErrors.length - 1],
    outage: {
      onLive(wait) {
        if (wait !== undefined) line(`${new Date().toISOString().slice(11, 19)} waiting for the model server: ${outageWords(wait)}`);
        update({ outage_wait: wait });
        scheduleSave();
      },
      onEnd(report) {
        update({ outages: [...(job.record.outages ?? []), report].slice(-MAX_OUTAGES) });
        line(`${report.ended_at.slice(11, 19)} outage of ${report.endpoint} over (${report.outcome}) after ${Math.round((Date.parse(report.ended_at) - Date.parse(report.started_at)) / 1000)} s; it ${report.saw.join(', then ')}`);
        scheduleSave();
      },
    },
    stop() {
      clearInterval(liveTimer);
      liveTimer = undefined;
      update({ in_flight: undefined, outage_wait: undefined });
    },
  };
}
