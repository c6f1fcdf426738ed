/**
 * What a set of jobs adds up to, before prices: whole numbers (and GPU time) that
 * merge by adding, priced at report time with whatever models.yaml says then.
 */
import { addGpuMs, type JobUsage } from './job-usage.js';
import type { CallerTokens } from './transcripts/transcript-turns.js';

/** Where each sum sits in a row of sums: a flat list merges by one loop. */
export const SUM = {
  succeeded: 0, failed: 1, other: 2, turns: 3, requests: 4, evaluated: 5, cacheWritten: 6, cached: 7, output: 8, gpuMs: 9,
  // The tokens of jobs that succeeded and whose work was not lost (discarded, reverted, followed up): only these are priced as saved.
  succeededEvaluated: 10, succeededCacheWritten: 11, succeededCached: 12, succeededOutput: 13,
  // The caller's side, measured from its transcripts: jobs measured / unknown / not yet looked up, and the turns and tokens.
  callerMeasured: 14, callerUnknown: 15, callerPending: 16, callerTurns: 17,
  callerInput: 18, callerCacheRead: 19, callerCacheWrite5m: 20, callerCacheWrite1h: 21, callerOutput: 22,
  verifyJobs: 23, verifyPassed: 24, fixTurns: 25, fixTokens: 26,
  // What became of the work (src/jobs/record/outcome.ts); the rest of the jobs are unknown.
  kept: 27, lost: 28,
} as const;
const SUM_COUNT = 29;

/** The caller's tokens a row of sums holds. */
export const callerTokensOf = (s: readonly number[]): CallerTokens => ({
  input: s[SUM.callerInput] as number,
  cacheRead: s[SUM.callerCacheRead] as number,
  cacheWrite5m: s[SUM.callerCacheWrite5m] as number,
  cacheWrite1h: s[SUM.callerCacheWrite1h] as number,
  output: s[SUM.callerOutput] as number,
});

export type UsageSums = number[];

export const emptySums = (): UsageSums => new Array<number>(SUM_COUNT).fill(0);

/** Whether a stored value is a count: a finite number, not negative (GPU time and speeds may have a fraction). */
export const isCount = (x: unknown): x is number => typeof x === 'number' && x >= 0 && x !== Infinity;

/** Whether a stored value is a list of counts (of `length`, when given). */
export function isCounts(x: unknown, length?: number): x is number[] {
  if (!Array.isArray(x) || (length !== undefined && x.length !== length)) return false;
  for (let i = 0; i < x.length; i++) if (!isCount(x[i])) return false;
  return true;
}

/** Whether a stored value is a row of sums. */
export const isSums = (x: unknown): x is UsageSums => isCounts(x, SUM_COUNT);

/** Adds a job's counts to a row of sums. */
export function addJobToSums(s: UsageSums, job: JobUsage): void {
  const add = (at: number, n: number): void => {
    s[at] = (s[at] as number) + n;
  };
  const t = job.tokens;
  const at = job.status === 'succeeded' ? SUM.succeeded : job.status === 'failed' || job.status === 'timeout' ? SUM.failed : SUM.other;
  add(at, 1);
  add(SUM.turns, job.turns);
  add(SUM.requests, job.requests);
  add(SUM.evaluated, t.evaluated);
  add(SUM.cacheWritten, t.cacheWritten);
  add(SUM.cached, t.cached);
  add(SUM.output, t.output);
  s[SUM.gpuMs] = addGpuMs(s[SUM.gpuMs] as number, job.gpuMs);
  if (job.outcome !== 'unknown') add(job.outcome === 'kept' ? SUM.kept : SUM.lost, 1);
  if (at === SUM.succeeded && job.outcome !== 'lost') {
    add(SUM.succeededEvaluated, t.evaluated);
    add(SUM.succeededCacheWritten, t.cacheWritten);
    add(SUM.succeededCached, t.cached);
    add(SUM.succeededOutput, t.output);
  }
  const cost = job.caller.cost;
  if (cost === undefined) add(SUM.callerPending, 1);
  else if ('unknown' in cost) add(SUM.callerUnknown, 1);
  else {
    const c = cost.tokens;
    add(SUM.callerMeasured, 1);
    add(SUM.callerTurns, cost.turns);
    add(SUM.callerInput, c.input);
    add(SUM.callerCacheRead, c.cacheRead);
    add(SUM.callerCacheWrite5m, c.cacheWrite5m);
    add(SUM.callerCacheWrite1h, c.cacheWrite1h);
    add(SUM.callerOutput, c.output);
  }
  const v = job.verify;
  if (v !== undefined) {
    add(SUM.verifyJobs, 1);
    if (v.passed) add(SUM.verifyPassed, 1);
    add(SUM.fixTurns, v.fixTurns);
    add(SUM.fixTokens, v.fixTokens);
  }
}

export function mergeSums(into: UsageSums, from: readonly number[]): void {
  for (let i = 0; i < SUM_COUNT; i++) if (i !== SUM.gpuMs) into[i] = (into[i] as number) + (from[i] as number);
  into[SUM.gpuMs] = addGpuMs(into[SUM.gpuMs] as number, from[SUM.gpuMs] as number);
}
