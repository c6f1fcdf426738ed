/**
 * What a job's verify command did, as its record (job.json, job_status) holds
 * it, and the one line every view leads with.
 */
import { z } from 'zod';

const spentSchema = z.object({
  turns: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_read_input_tokens: z.number(),
});
/** Turns and tokens the local model spent after a failed check: the fixing the caller did not have to do. */
export type Spent = z.infer<typeof spentSchema>;

const attemptSchema = z.object({
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
export type VerifyAttempt = z.infer<typeof attemptSchema>;

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
export type Verification = z.infer<typeof verificationSchema>;

/** `npm test` with backticks, shortened for one line. */
function quoted(command: string): string {
  const one = command.replace(/\s+/g, ' ').trim();
  return `\`${one.length > 120 ? `${one.slice(0, 117)}...` : one}\``;
}

function lastOutput(attempt: VerifyAttempt | undefined, chars: number): string {
  if (attempt === undefined) return '';
  const text = attempt.output_tail.trim();
  const shown = text.length > chars ? `…${text.slice(-chars)}` : text;
  const why = attempt.timed_out ? 'cut at its time limit' : `exit ${attempt.exit_code ?? 'by signal'}`;
  return `${why}; last output: ${shown === '' ? '(none)' : shown}`;
}

/**
 * "verify `npm test`: passed on attempt 2 of 3", "failed 3 times; last output: …", or, while it runs, how far it got.
 * `outputChars` bounds the quoted output (the record keeps more).
 */
export function verificationLine(v: Verification, outputChars = 600): string {
  const head = `verify ${quoted(v.command)}`;
  const n = v.attempts.length;
  const spent = v.spent_after_failures;
  const fixing = spent !== undefined && spent.turns > 0 ? ` (fixing after failed checks took ${spent.turns} turns, ${spent.input_tokens + spent.output_tokens} tokens)` : '';
  if (v.passed) return `${head}: passed on attempt ${n} of ${v.max_attempts}${fixing}`;
  if (n === 0) return `${head}: not run yet (up to ${v.max_attempts} attempts)`;
  const times = n === 1 ? 'once' : `${n} times`;
  return `${head}: failed ${times} of ${v.max_attempts}${fixing}; ${lastOutput(v.attempts[n - 1], outputChars)}`;
}
