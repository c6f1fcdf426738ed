/**
 * What a set of jobs adds up to, before prices: whole numbers (and GPU time) that
 * merge by adding, priced at report time with whatever models.yaml says then.
 */
import type { JobUsage } from './job-usage.js';
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

/** Whether a stored value is a row of sums: SUM_COUNT counts (GPU time may have a fraction). */
export const isSums = (x: unknown): x is UsageSums => Array.isArray(x) && x.length === SUM_COUNT && x.every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0);

/** Adds a job: written out, not through a helper, as a year's report adds 10,000 jobs mostly before V8 optimises this. */
export function addJobToSums(s: UsageSums, job: JobUsage): void {
  const t = job.tokens;
  const at = job.status === 'succeeded' ? SUM.succeeded : job.status === 'failed' || job.status === 'timeout' ? SUM.failed : SUM.other;
  s[at] = (s[at] as number) + 1;
  s[SUM.turns] = (s[SUM.turns] as number) + job.turns;
  s[SUM.requests] = (s[SUM.requests] as number) + job.requests;
  s[SUM.evaluated] = (s[SUM.evaluated] as number) + t.evaluated;
  s[SUM.cacheWritten] = (s[SUM.cacheWritten] as number) + t.cacheWritten;
  s[SUM.cached] = (s[SUM.cached] as number) + t.cached;
  s[SUM.output] = (s[SUM.output] as number) + t.output;
  s[SUM.gpuMs] = (s[SUM.gpuMs] as number) + job.gpuMs;
  if (job.outcome !== 'unknown') {
    const fate = job.outcome === 'kept' ? SUM.kept : SUM.lost;
    s[fate] = (s[fate] as number) + 1;
  }
  if (at === SUM.succeeded && job.outcome !== 'lost') {
    s[SUM.succeededEvaluated] = (s[SUM.succeededEvaluated] as number) + t.evaluated;
    s[SUM.succeededCacheWritten] = (s[SUM.succeededCacheWritten] as number) + t.cacheWritten;
    s[SUM.succeededCached] = (s[SUM.succeededCached] as number) + t.cached;
    s[SUM.succeededOutput] = (s[SUM.succeededOutput] as number) + t.output;
  }
  const cost = job.caller.cost;
  if (cost === undefined) s[SUM.callerPending] = (s[SUM.callerPending] as number) + 1;
  else if ('unknown' in cost) s[SUM.callerUnknown] = (s[SUM.callerUnknown] as number) + 1;
  else {
    const c = cost.tokens;
    s[SUM.callerMeasured] = (s[SUM.callerMeasured] as number) + 1;
    s[SUM.callerTurns] = (s[SUM.callerTurns] as number) + cost.turns;
    s[SUM.callerInput] = (s[SUM.callerInput] as number) + c.input;
    s[SUM.callerCacheRead] = (s[SUM.callerCacheRead] as number) + c.cacheRead;
    s[SUM.callerCacheWrite5m] = (s[SUM.callerCacheWrite5m] as number) + c.cacheWrite5m;
    s[SUM.callerCacheWrite1h] = (s[SUM.callerCacheWrite1h] as number) + c.cacheWrite1h;
    s[SUM.callerOutput] = (s[SUM.callerOutput] as number) + c.output;
  }
  const v = job.verify;
  if (v !== undefined) {
    s[SUM.verifyJobs] = (s[SUM.verifyJobs] as number) + 1;
    if (v.passed) s[SUM.verifyPassed] = (s[SUM.verifyPassed] as number) + 1;
    s[SUM.fixTurns] = (s[SUM.fixTurns] as number) + v.fixTurns;
    s[SUM.fixTokens] = (s[SUM.fixTokens] as number) + v.fixTokens;
  }
}

export function mergeSums(into: UsageSums, from: readonly number[]): void {
  for (let i = 0; i < SUM_COUNT; i++) into[i] = (into[i] as number) + (from[i] as number);
}
