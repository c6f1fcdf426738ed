/**
 * The zod schemas of the job record (job.json), from which its types come
 * (src/jobs/record/job-record.ts) and its read-time shape is generated
 * (src/jobs/record/job-record-shape.ts, `npm run gen:shapes`): readers check records
 * against that shape without loading zod.
 */
import { z } from 'zod';
import { ISOLATIONS, JOB_STATUSES } from './job-status.js';
import { sandboxRecordSchema } from './sandbox-schema.js';
import { verificationSchema } from './verify-schema.js';
import { leftTreeSchema, outcomeSchema } from './outcome-schema.js';

export const usageSchema = z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_read_input_tokens: z.number(),
});

export const worktreeSchema = z.object({
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

export const metricsDeltaSchema = z.object({
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

export const flagSchema = z.object({
  kind: z.enum(['silent', 'runaway', 'repetitive']),
  /** What is known, in words ("reading a ~60k-token prompt at ~900 tokens/s: about 70 s"). */
  message: z.string(),
});

/** One backend request of the job that is open now (the live view). */
export const inFlightSchema = z.object({
  request: z.number(),
  started_at: z.string(),
  phase: z.enum(['waiting for a slot', 'reading the prompt', 'generating']),
  /** Whole prompt and its cached part, once the backend said (with the first token). */
  prompt_tokens: z.number().optional(),
  cached_tokens: z.number().optional(),
  /** Before that: a guess from the request size and this job's earlier requests. */
  prompt_tokens_estimate: z.number().optional(),
  /** While the prompt is read (llama.cpp /slots, when the slot is surely this request's): tokens read so far, the cached part, and speed. */
  prompt_read_tokens: z.number().optional(),
  prompt_read_cached: z.number().optional(),
  prompt_read_per_s: z.number().optional(),
  /** Estimated from the stream while it runs (see src/shim/progress/request-progress.ts); the backend's count once it sent one. */
  output_tokens: z.number(),
  output_tokens_exact: z.boolean(),
  /** Over the last few seconds of generation. */
  tokens_per_s: z.number().optional(),
  /** Seconds since the last byte from the backend (since the start, before the first). */
  silent_s: z.number(),
  flags: z.array(flagSchema),
});

/** A backend error, as it happened, with what it means (src/shim/translate/error-catalogue.ts). */
export const backendErrorSchema = z.object({
  at: z.string(),
  request: z.number().optional(),
  status: z.number(),
  /** Where it came from: http (an error status), stream (an error event in a 200 stream), cut, connect, answer. */
  source: z.string().optional(),
  /** The backend's own words, redacted and shortened. */
  message: z.string(),
  explanation: z.object({ kind: z.string(), what: z.string(), causes: z.array(z.string()), try: z.array(z.string()) }),
});

/** One time the job's endpoint stopped serving its model under it (src/shim/outage-hold.ts). */
export const outageSchema = z.object({
  endpoint: z.string(),
  started_at: z.string(),
  ended_at: z.string(),
  /** What the probes saw, in order: "is loading its model", "serves X now, not the job's model Y", … */
  saw: z.array(z.string()),
  outcome: z.enum(['served again', 'deadline passed', 'job ended', 'moved']),
});

/** One move of a running job to another endpoint serving its model (defaults.failover: same_model). */
export const moveSchema = z.object({
  from: z.string(),
  to: z.string(),
  at: z.string(),
  /** Why it left: how long `from` had not served the job's model, and what the probes saw last. */
  reason: z.string(),
  /** The id `to` serves, and its per-request window. */
  served: z.string(),
  context: z.number().optional(),
});

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
    /** The weights the endpoint served it from at the start, where it said (llama.cpp model_path, vLLM root). */
    served_file: z.string().optional(),
    /** What told those weights apart, where the server said (llama.cpp parameters and bytes, Ollama's digest). */
    served_fingerprint: z.string().optional(),
    endpoint: z.string().optional(),
    context: z.number().optional(),
    context_source: z.string().optional(),
    /** Which endpoint was used and why (pinned, preferred, warm cache, most free capacity…). */
    endpoint_reason: z.string().optional(),
    /** The menu entry the request resolved through, whose permission_mode, max_turns and env apply. */
    menu_entry: z.string().optional(),
  }),
  /** The Claude Code agent definition the session ran as: which file (or models.yaml), its sha256, where its model came from, the tools it was offered. */
  agent: z
    .object({
      name: z.string(),
      source: z.enum(['models.yaml', 'project', 'user']),
      file: z.string(),
      sha256: z.string(),
      model_from: z.string(),
      tools: z.array(z.string()).optional(),
    })
    .optional(),
  /** The folder with this job's transcript.txt, events.jsonl and requests.jsonl. */
  log_dir: z.string().optional(),
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
  /** Distinct images and documents the shim turned into text (absent: none). */
  media_replaced: z.object({ images: z.number(), documents_extracted: z.number(), documents_failed: z.number() }).optional(),
  /** Backend requests open right now (absent when none, and once the job ended). */
  in_flight: z.array(inFlightSchema).optional(),
  /** The outage the job is waiting out right now (absent when none). */
  outage_wait: z.object({ endpoint: z.string(), since: z.string(), saw: z.string(), wait_s: z.number() }).optional(),
  /** Every outage of the job's endpoint the job waited through (at most 20, the latest kept). */
  outages: z.array(outageSchema).optional(),
  /** Every move to another endpoint serving the job's model (defaults.failover: same_model), in order. */
  moves: z.array(moveSchema).optional(),
  /** Why the job's last try to move found no endpoint (a smaller window, no free slot…); absent once it moved. */
  failover_blocked: z.string().optional(),
  /** The most recent backend errors (at most 20), each explained. */
  backend_errors: z.array(backendErrorSchema).optional(),
  result: z.string().optional(),
  /** What went wrong, as facts both audiences read (no "ask the user"): each edge adds its own next step. */
  error: z.string().optional(),
  /** The error's code when localagents itself ended the job (model_unavailable: its model stopped being served). */
  error_code: z.string().optional(),
  worktree: worktreeSchema.optional(),
  metrics: metricsDeltaSchema.optional(),
  queue: z.object({ position: z.number(), waiting_for: z.string() }).optional(),
  warnings: z.array(z.string()),
  /** Which Claude Code ran the session, where it was found, and (once it started) its version. */
  claude_code: z.object({ path: z.string(), source: z.string(), version: z.string().optional() }).optional(),
  /** Claude Code settings sources the session loads (defaults.setting_sources). */
  setting_sources: z.array(z.string()).optional(),
  /** Claude Code's sandbox around the session's Bash: policy, escape hatches, refusals. */
  sandbox: sandboxRecordSchema.optional(),
  /** The verify command the job had to pass before it could end: each check, and what fixing cost. */
  verification: verificationSchema.optional(),
  /** What became of the work (merged, discarded, followed up, …), recorded as it became known; absent: unknown. */
  outcome: outcomeSchema.optional(),
  /** An in-place job's changed files as it left them, compared at the next commit (absent for worktree jobs). */
  left_tree: leftTreeSchema.optional(),
  /** The Claude Code process (its own process group) while the job runs. */
  claude_pid: z.number().optional(),
  /** Start-time token of that process, so a reused PID is never signalled. */
  claude_start: z.string().optional(),
  /** The server process that runs the job; a record left `running` by a dead owner is `interrupted`. */
  owner_pid: z.number(),
  /** Start-time token of the owner (see src/coord/process-identity.ts): with the PID, who owns the job. */
  owner_start: z.string().optional(),
});

export type JobRecord = z.infer<typeof jobRecordSchema>;
