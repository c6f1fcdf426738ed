/**
 * The job record: what job.json holds and what job_status returns. Read back
 * from disk through the schema, so a record written by an older version or
 * damaged by hand is reported, not trusted.
 */
import { z } from 'zod';

export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'timeout', 'interrupted'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const FINISHED: ReadonlySet<JobStatus> = new Set(['succeeded', 'failed', 'cancelled', 'timeout', 'interrupted']);

export const ISOLATIONS = ['none', 'worktree'] as const;
export type Isolation = (typeof ISOLATIONS)[number];

const usageSchema = z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_read_input_tokens: z.number(),
});
export type JobUsage = z.infer<typeof usageSchema>;

const worktreeSchema = z.object({
  path: z.string(),
  branch: z.string(),
  base_commit: z.string(),
  kept: z.boolean(),
  diffstat: z.string(),
  commits: z.number(),
  commands: z.record(z.string(), z.string()),
  warnings: z.array(z.string()),
  /** Files the job created that git does not track (relative to the worktree; a folder ends in /). */
  untracked_files: z.array(z.string()).optional(),
  /** Files the job created that git ignores (build output, caches); a whole ignored folder is one entry ending in /. */
  ignored_files: z.array(z.string()).optional(),
});
export type WorktreeInfo = z.infer<typeof worktreeSchema>;

const metricsDeltaSchema = z.object({
  note: z.string(),
  prompt_tokens_processed: z.number().optional(),
  prompt_tokens_cached: z.number().optional(),
  cache_hit_ratio: z.number().optional(),
  prompt_tokens_per_s: z.number().optional(),
  generation_tokens_per_s: z.number().optional(),
  generated_tokens: z.number().optional(),
  speculative_acceptance: z.number().optional(),
  counters: z.record(z.string(), z.number()),
});
export type MetricsDelta = z.infer<typeof metricsDeltaSchema>;

export const jobRecordSchema = z.object({
  id: z.string(),
  status: z.enum(JOB_STATUSES),
  created_at: z.string(),
  started_at: z.string().optional(),
  finished_at: z.string().optional(),
  task_preview: z.string(),
  model: z.object({
    requested: z.string().optional(),
    served: z.string().optional(),
    endpoint: z.string().optional(),
    context: z.number().optional(),
    context_source: z.string().optional(),
  }),
  cwd: z.string(),
  /** Where the session ran: `cwd`, or its counterpart inside the worktree. */
  work_dir: z.string().optional(),
  isolation: z.enum(ISOLATIONS),
  permission_mode: z.string(),
  max_turns: z.number(),
  timeout_s: z.number(),
  allowed_tools: z.array(z.string()),
  disallowed_tools: z.array(z.string()),
  session_id: z.string().optional(),
  resumed_from: z.string().optional(),
  num_turns: z.number(),
  tool_calls: z.number(),
  last_activity: z.object({ at: z.string(), what: z.string() }).optional(),
  files_touched: z.array(z.string()),
  usage: usageSchema,
  first_turn_cache_read_tokens: z.number().optional(),
  requests: z.number(),
  result: z.string().optional(),
  error: z.string().optional(),
  worktree: worktreeSchema.optional(),
  metrics: metricsDeltaSchema.optional(),
  queue: z.object({ position: z.number(), waiting_for: z.string() }).optional(),
  warnings: z.array(z.string()),
  /** The Claude Code process (its own process group) while the job runs. */
  claude_pid: z.number().optional(),
  /** The server process that runs the job; a record left `running` by a dead owner is `interrupted`. */
  owner_pid: z.number(),
});

export type JobRecord = z.infer<typeof jobRecordSchema>;

/** Seconds from start (or creation, while queued) to the end, or to `now` while it runs. */
export function elapsedSeconds(record: JobRecord, now: Date = new Date()): number {
  const start = Date.parse(record.started_at ?? record.created_at);
  const end = record.finished_at ? Date.parse(record.finished_at) : now.getTime();
  return Math.max(0, Math.round((end - start) / 100) / 10);
}
