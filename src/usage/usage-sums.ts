/**
 * What a set of jobs adds up to, before prices: whole numbers (and GPU time) that
 * merge by adding, so a day's jobs can be summed once, kept in the usage index,
 * and priced at report time with whatever models.yaml says then.
 */
import { callerTokens } from './estimate.js';
import type { JobUsage } from './job-usage.js';

export const SUM_FIELDS = [
  'succeeded', 'failed', 'other', 'turns', 'requests', 'evaluated', 'cacheWritten', 'cached', 'output', 'gpuMs',
  // The succeeded jobs' tokens: only work that succeeded is priced as saved.
  'succeededEvaluated', 'succeededCacheWritten', 'succeededCached', 'succeededOutput',
  // Caller bytes as tokens, rounded up per job as the estimate counts them.
  'callerRead', 'callerWritten',
  'verifyJobs', 'verifyPassed', 'fixTurns', 'fixTokens',
] as const;

export type UsageSums = Record<(typeof SUM_FIELDS)[number], number>;

export function emptySums(): UsageSums {
  return Object.fromEntries(SUM_FIELDS.map((f) => [f, 0])) as UsageSums;
}

export function addJobToSums(s: UsageSums, job: JobUsage): void {
  const succeeded = job.status === 'succeeded';
  if (succeeded) s.succeeded++;
  else if (job.status === 'failed' || job.status === 'timeout') s.failed++;
  else s.other++;
  s.turns += job.turns;
  s.requests += job.requests;
  s.evaluated += job.tokens.evaluated;
  s.cacheWritten += job.tokens.cacheWritten;
  s.cached += job.tokens.cached;
  s.output += job.tokens.output;
  s.gpuMs += job.gpuMs;
  if (succeeded) {
    s.succeededEvaluated += job.tokens.evaluated;
    s.succeededCacheWritten += job.tokens.cacheWritten;
    s.succeededCached += job.tokens.cached;
    s.succeededOutput += job.tokens.output;
  }
  s.callerRead += callerTokens(job.caller.resultBytes);
  s.callerWritten += callerTokens(job.caller.argsBytes);
  if (job.verify !== undefined) {
    s.verifyJobs++;
    if (job.verify.passed) s.verifyPassed++;
    s.fixTurns += job.verify.fixTurns;
    s.fixTokens += job.verify.fixTokens;
  }
}

export function mergeSums(into: UsageSums, from: UsageSums): void {
  for (const f of SUM_FIELDS) into[f] += from[f];
}

/** The sums as stored: a list in SUM_FIELDS order. */
export const encodeSums = (s: UsageSums): number[] => SUM_FIELDS.map((f) => s[f]);

/** Stored sums, or undefined for a list that is not one we wrote. */
export function decodeSums(stored: unknown): UsageSums | undefined {
  if (!Array.isArray(stored) || stored.length !== SUM_FIELDS.length) return undefined;
  const s = emptySums();
  for (const [i, f] of SUM_FIELDS.entries()) {
    const n: unknown = stored[i];
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) return undefined;
    s[f] = n;
  }
  return s;
}
