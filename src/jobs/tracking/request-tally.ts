/**
 * What a job's finished model requests add up to, from the shim's request log
 * entries: how many, the tokens the backend reported (so job_status shows
 * tokens while the job runs; Claude Code's own totals arrive only with its
 * final result and leave out compaction requests), the first turn's cache
 * reuse, the media the shim replaced, and the recent backend errors. Pure.
 */
import type { BackendKind } from '../../config/schema.js';
import type { RequestLogEntry } from '../../shim/request-log/request-log.js';
import { backendError } from './backend-error-event.js';
import type { BackendErrorEvent, JobRecord } from '../record/job-record.js';
import { createMediaTally } from './media-tally.js';

/** Backend errors kept in the record: the recent ones tell the story, a retry storm must not grow it without end. */
export const MAX_BACKEND_ERRORS = 20;

export interface RequestTally {
  /** Counts a finished model request (see isModelRequest); returns the backend error it reports, if any. */
  add(entry: RequestLogEntry): BackendErrorEvent | undefined;
  /** The record fields every request updates. */
  counts(): Pick<JobRecord, 'usage' | 'requests' | 'first_turn_cache_read_tokens'>;
  /** The record fields only some requests set: present once there is something to say. */
  findings(): Pick<JobRecord, 'backend_errors' | 'media_replaced'>;
  lastBackendError(): BackendErrorEvent | undefined;
}

/** Whether a request log entry is a model request (not token counting or a probe). */
export function isModelRequest(entry: RequestLogEntry): boolean {
  return entry.path.startsWith('/v1/messages') && !entry.path.startsWith('/v1/messages/count_tokens');
}

export function createRequestTally(backend: BackendKind): RequestTally {
  const usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0 };
  const backendErrors: BackendErrorEvent[] = [];
  const media = createMediaTally();
  let mediaReplaced: JobRecord['media_replaced'];
  let requests = 0;
  let firstCacheRead: number | undefined;
  return {
    add(entry) {
      requests++;
      mediaReplaced = media.add(entry) ?? mediaReplaced;
      if (firstCacheRead === undefined && entry.usage) firstCacheRead = entry.usage.cache_read_input_tokens ?? 0;
      usage.input_tokens += entry.usage?.input_tokens ?? 0;
      usage.output_tokens += entry.usage?.output_tokens ?? 0;
      usage.cache_read_input_tokens += entry.usage?.cache_read_input_tokens ?? 0;
      const failure = backendError(entry, backend);
      if (failure !== undefined) {
        backendErrors.push(failure);
        if (backendErrors.length > MAX_BACKEND_ERRORS) backendErrors.shift();
      }
      return failure;
    },
    counts: () => ({ usage: { ...usage }, requests, first_turn_cache_read_tokens: firstCacheRead }),
    findings: () => ({
      ...(backendErrors.length === 0 ? {} : { backend_errors: [...backendErrors] }),
      ...(mediaReplaced === undefined ? {} : { media_replaced: mediaReplaced }),
    }),
    lastBackendError: () => backendErrors.at(-1),
  };
}
