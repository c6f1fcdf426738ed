/** The zod schema of a job record's `verification` part (see record.ts beside it, and src/jobs/record/job-record-schema.ts). */
import { z } from 'zod';

export const spentSchema = z.object({
  turns: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_read_input_tokens: z.number(),
});

export const attemptSchema = z.object({
  started_at: z.string(),
  /** The command's exit status; null when it was cut at its time limit or killed by a signal. */
  exit_code: z.number().nullable(),
  duration_ms: z.number(),
  /** The end of what it printed (stdout and stderr together), bounded and redacted. */
  output_tail: z.string(),
  timed_out: z.boolean().optional(),
  /** After this failed check, until the next check or the end of the session. */
  spent_after: spentSchema.optional(),
});

export const verificationSchema = z.object({
  command: z.string(),
  passed: z.boolean(),
  /** How many checks the job may run (verify_attempts, bounded by defaults.max_verify_attempts). */
  max_attempts: z.number(),
  timeout_s: z.number(),
  /** Sandboxed like the session's Bash, or plain (the sandbox is off). */
  sandboxed: z.boolean(),
  attempts: z.array(attemptSchema),
  /** The sum of every attempt's spent_after. */
  spent_after_failures: spentSchema.optional(),
  /** How the check was run when not through Claude Code's Stop hook, and other facts worth knowing. */
  notes: z.array(z.string()).optional(),
});
