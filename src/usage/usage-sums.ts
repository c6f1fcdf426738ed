/**
 * What a set of jobs adds up to, before prices: whole numbers (and GPU time) that
 * merge by adding, so a day's jobs can be summed once, kept in the usage index,
 * and priced at report time with whatever models.yaml says then.
 */
import { callerTokens } from './estimate.js';
import type { JobUsage } from './job-usage.js';

/** Where each sum sits in a row of sums: a flat list merges by one loop, and is stored as it is. */
export const SUM = {
  succeeded: 0, failed: 1, other: 2, turns: 3, requests: 4, evaluated: 5, cacheWritten: 6, cached: 7, output: 8, gpuMs: 9,
  // The succeeded jobs' tokens: only work that succeeded is priced as saved.
  succeededEvaluated: 10, succeededCacheWritten: 11, succeededCached: 12, succeededOutput: 13,
  // Caller bytes as tokens, rounded up per job as the estimate counts them.
  callerRead: 14, callerWritten: 15,
  verifyJobs: 16, verifyPassed: 17, fixTurns: 18, fixTokens: 19,
} as const;
const SUM_COUNT = 20;

export type UsageSums = number[];

export const emptySums = (): UsageSums => new Array<number>(SUM_COUNT).fill(0);

export function addJobToSums(s: UsageSums, job: JobUsage): void {
  const add = (at: number, n: number): void => {
    s[at] = (s[at] as number) + n;
  };
  const succeeded = job.status === 'succeeded';
  add(succeeded ? SUM.succeeded : job.status === 'failed' || job.status === 'timeout' ? SUM.failed : SUM.other, 1);
  add(SUM.turns, job.turns);
  add(SUM.requests, job.requests);
  add(SUM.evaluated, job.tokens.evaluated);
  add(SUM.cacheWritten, job.tokens.cacheWritten);
  add(SUM.cached, job.tokens.cached);
  add(SUM.output, job.tokens.output);
  add(SUM.gpuMs, job.gpuMs);
  if (succeeded) {
    add(SUM.succeededEvaluated, job.tokens.evaluated);
    add(SUM.succeededCacheWritten, job.tokens.cacheWritten);
    add(SUM.succeededCached, job.tokens.cached);
    add(SUM.succeededOutput, job.tokens.output);
  }
  add(SUM.callerRead, callerTokens(job.caller.resultBytes));
  add(SUM.callerWritten, callerTokens(job.caller.argsBytes));
  if (job.verify !== undefined) {
    add(SUM.verifyJobs, 1);
    if (job.verify.passed) add(SUM.verifyPassed, 1);
    add(SUM.fixTurns, job.verify.fixTurns);
    add(SUM.fixTokens, job.verify.fixTokens);
  }
}

export function mergeSums(into: UsageSums, from: readonly number[]): void {
  for (let i = 0; i < SUM_COUNT; i++) into[i] = (into[i] as number) + (from[i] as number);
}

/** Stored sums, or undefined for a list that is not one we wrote. */
export function decodeSums(stored: unknown): UsageSums | undefined {
  if (!Array.isArray(stored) || stored.length !== SUM_COUNT) return undefined;
  // By index: until the code is optimised, for-of allocates at every step, and a year's report checks ~8,000 numbers here.
  for (let i = 0; i < SUM_COUNT; i++) {
    const n: unknown = stored[i];
    if (typeof n !== 'number' || !(n >= 0) || n === Infinity) return undefined;
  }
  return stored as number[];
}
