/**
 * What a running job's record learns as it goes: per-request counters, usage
 * and backend errors from the shim (request-tally.ts), turns and files from the
 * session's messages, the in-flight requests, the outage waits, and one
 * transcript line per event. The record is saved at most 5 times a second
 * while a session is busy.
 */
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import type { Endpoint } from '../../config/schema.js';
import { redactSecrets } from '../../secrets/redact.js';
import type { RequestLogEntry } from '../../shim/request-log/request-log.js';
import type { RequestProgress } from '../../shim/progress/request-progress.js';
import { outageWords, type OutageEvents } from '../../shim/outage-hold.js';
import { backendErrorLine } from './backend-error-event.js';
import type { BackendErrorEvent, JobRecord } from '../record/job-record.js';
import { createLiveRequests, DEFAULT_LIVE_THRESHOLDS } from './live-requests.js';
import { createRequestTally, isModelRequest } from './request-tally.js';
import { newProgress, observe, type SessionProgress } from './session-observer.js';

/** Outages kept in the record: a flapping server must not grow it without end. */
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

type RecordWriter = Pick<RunTracker, 'update' | 'line' | 'scheduleSave'> & { readonly record: () => JobRecord };

const clock = (at: Date | string = new Date()): string => (typeof at === 'string' ? at : at.toISOString()).slice(11, 19);

/** The outage wait as the record and the transcript tell it. */
function outageEvents(out: RecordWriter): OutageEvents {
  return {
    onLive(wait) {
      if (wait !== undefined) out.line(`${clock()} waiting for the model server: ${outageWords(wait)}`);
      out.update({ outage_wait: wait });
      out.scheduleSave();
    },
    onEnd(report) {
      out.update({ outages: [...(out.record().outages ?? []), report].slice(-MAX_OUTAGES) });
      out.line(`${clock(report.ended_at)} outage of ${report.endpoint} over (${report.outcome}) after ${Math.round((Date.parse(report.ended_at) - Date.parse(report.started_at)) / 1000)} s; it ${report.saw.join(', then ')}`);
      out.scheduleSave();
    },
  };
}

export function createRunTracker(job: TrackedJob, out: TrackerOutputs): RunTracker {
  const progress = newProgress();
  const live = createLiveRequests(DEFAULT_LIVE_THRESHOLDS);
  const tally = createRequestTally(job.endpoint.backend);
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
    for (const { request, flag } of raised) line(`${clock()} request ${request}: ${flag.message}`);
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
      ...tally.counts(),
    });
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
      liveTimer ??= setInterval(refreshLive, DEFAULT_LIVE_THRESHOLDS.refreshMs).unref();
      refreshLive();
    },
    onRequest(entry) {
      if (isModelRequest(entry)) {
        const failure = tally.add(entry);
        if (failure !== undefined) line(backendErrorLine(failure));
        live.finished(entry);
        update(tally.findings());
        refreshLive();
      }
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
    lastBackendError: () => tally.lastBackendError(),
    outage: outageEvents({ update, line, scheduleSave, record: () => job.record }),
    stop() {
      clearInterval(liveTimer);
      liveTimer = undefined;
      update({ in_flight: undefined, outage_wait: undefined });
    },
  };
}
