/**
 * The job record: what job.json holds and what job_status returns. Read back
 * from disk through its shape (job-record-shape.ts, generated from the schemas in
 * job-record-schema.ts), so a record written by an older version or damaged by
 * hand is reported, not trusted. Nothing here loads zod: the commands that only
 * read records start without it.
 */
import type { z } from 'zod';
import type * as schemas from './job-record-schema.js';

export { FINISHED, ISOLATIONS, JOB_STATUSES, type Isolation, type JobStatus } from './job-status.js';

export type JobUsage = z.infer<typeof schemas.usageSchema>;
export type WorktreeInfo = z.infer<typeof schemas.worktreeSchema>;
export type RequestFlag = z.infer<typeof schemas.flagSchema>;
export type InFlightRequest = z.infer<typeof schemas.inFlightSchema>;
export type BackendErrorEvent = z.infer<typeof schemas.backendErrorSchema>;
export type OutageRecord = z.infer<typeof schemas.outageSchema>;
export type MoveRecord = z.infer<typeof schemas.moveSchema>;
export type JobRecord = z.infer<typeof schemas.jobRecordSchema>;

/** Seconds from start (or creation, while queued) to the end, or to `now` while it runs. */
export function elapsedSeconds(record: JobRecord, now: Date = new Date()): number {
  const start = Date.parse(record.started_at ?? record.created_at);
  const end = record.finished_at ? Date.parse(record.finished_at) : now.getTime();
  return Math.max(0, Math.round((end - start) / 100) / 10);
}
