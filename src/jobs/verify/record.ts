/**
 * What a job's verify command did, as its record (job.json, job_status) holds
 * it (the schema is in record-schema.ts, so reading a record loads no zod), and
 * the one line every view leads with.
 */
import type { z } from 'zod';
import type { attemptSchema, spentSchema, verificationSchema } from '../record/verify-schema.js';

/** Turns and tokens the local model spent after a failed check: the fixing the caller did not have to do. */
export type Spent = z.infer<typeof spentSchema>;
export type VerifyAttempt = z.infer<typeof attemptSchema>;
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
