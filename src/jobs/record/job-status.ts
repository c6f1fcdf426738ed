/** A job's statuses and isolations: plain lists the record's schema and its readers share, without zod. */
export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'timeout', 'interrupted'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const FINISHED: ReadonlySet<JobStatus> = new Set(['succeeded', 'failed', 'cancelled', 'timeout', 'interrupted']);

export const ISOLATIONS = ['none', 'worktree'] as const;
export type Isolation = (typeof ISOLATIONS)[number];
