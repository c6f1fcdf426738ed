/**
 * A job's caller cost looked up when a report first needs it: measured from the
 * caller's transcript and, once final, appended to the job's caller.jsonl, so the
 * transcript is read for it once. The status line never looks up (it only reads).
 */
import { appendCallerEntry } from '../../jobs/record/caller-log.js';
import type { JobRecord } from '../../jobs/record/job-record.js';
import type { JobStore } from '../../jobs/record/job-store.js';
import { readCallerCalls, type JobUsage } from '../job-usage.js';
import { lineOfCost, resolveCallerCost, type TranscriptReader } from './caller-cost.js';

/** `job` with its caller cost, looked up in the transcripts when it has none on file. */
export async function withCallerCost(job: JobUsage, record: JobRecord, store: Pick<JobStore, 'root' | 'paths'>, reader: TranscriptReader, now: Date): Promise<JobUsage> {
  if (job.caller.settled || job.caller.cost !== undefined) return job;
  const calls = await readCallerCalls(store.paths(record.id).caller);
  const resolved = await resolveCallerCost(record.id, calls, record.finished_at, reader, now);
  if (resolved.final) {
    // Only a cache of what the transcript says: a folder that refuses it costs the next report a lookup.
    await appendCallerEntry(store, record.id, lineOfCost(resolved.cost, calls.length, now)).catch(() => undefined);
  }
  return { ...job, caller: { calls: calls.length, cost: resolved.cost, settled: resolved.final } };
}
