/**
 * Usage rows: jobs grouped by day, week, month, model, endpoint, repo or job,
 * each row the sums, medians and estimate of its jobs. Pure; fed one job at a
 * time, so a report over 10,000 jobs holds rows, not records.
 */
import { pricesOf, type ModelPrices } from '../config/prices.js';
import { callerCostUsd, localCostUsd } from './estimate.js';
import { isoWeek, localDay } from './calendar.js';
import { callerModelOf, type JobUsage } from './job-usage.js';
import type { Cell } from './month-cells.js';
import type { CallerTokens } from './transcripts/transcript-turns.js';
import { addJobToSums, callerTokensOf, emptySums, mergeSums, SUM, type UsageSums } from './usage-sums.js';

/** The user's `defaults.prices`, over the published table. */
export type OwnPrices = Readonly<Record<string, ModelPrices>>;

export const GROUPINGS = ['day', 'week', 'month', 'model', 'endpoint', 'repo', 'job'] as const;
export type Grouping = (typeof GROUPINGS)[number];

export interface UsageRow {
  readonly key: string;
  readonly jobs: { readonly succeeded: number; readonly failed: number; readonly other: number };
  /** What became of the jobs' work: kept (merged, in the next commit), lost (discarded, reverted, followed up), unknown. */
  readonly outcomes: { readonly kept: number; readonly lost: number; readonly unknown: number };
  readonly turns: number;
  readonly requests: number;
  readonly evaluated: number;
  readonly cacheWritten: number;
  readonly cached: number;
  readonly output: number;
  /** cached / (cached + evaluated + written); undefined without prompt tokens. */
  readonly cacheReuse: number | undefined;
  readonly gpuMs: number;
  /** Jobs with a verify command, how many passed, and the turns and tokens the local model spent after failed checks. */
  readonly verify: { readonly jobs: number; readonly passed: number; readonly fixTurns: number; readonly fixTokens: number };
  readonly medianPromptTokensPerS: number | undefined;
  readonly medianGenerationTokensPerS: number | undefined;
  /** What the jobs cost their callers: measured from the callers' transcripts (src/usage/transcripts). */
  readonly caller: {
    /** Jobs whose caller cost was measured, is unknown (with a reason, per job), or was not looked up yet. */
    readonly measured: number;
    readonly unknown: number;
    readonly pending: number;
    /** The measured jobs' caller turns and tokens (measured). */
    readonly turns: number;
    readonly tokens: CallerTokens;
    /** The callers' models the measured jobs ran on, and those without a price (their jobs have no dollar figures). */
    readonly models: readonly string[];
    readonly unpriced: readonly string[];
  };
  /** Computed at published prices, over the measured jobs on priced models. */
  readonly priced: {
    /** The caller's tokens at its model's prices: every such job, failed ones too. */
    readonly callerUsd: number;
    /** The local tokens of succeeded jobs whose work was not lost, at their caller's model's prices: what the caller would have paid for them. */
    readonly localUsd: number;
    /** localUsd − callerUsd: the net saving (a job that did not succeed, or whose work was lost, saved nothing; its caller cost is a loss). */
    readonly netUsd: number;
  };
}


/** Where a job or a cell ran: what the model, endpoint and repo groupings key on. */
interface Placed {
  readonly model: string;
  readonly endpoint: string;
  readonly repo: string;
}

/** The row of a job or cell created at `at` (its local day for the time groupings). */
function keyOf(by: Exclude<Grouping, 'job'>, at: Date, placed: Placed): string {
  switch (by) {
    case 'day':
      return localDay(at);
    case 'week':
      return isoWeek(at);
    case 'month':
      return localDay(at).slice(0, 7);
    case 'model':
      return placed.model;
    case 'endpoint':
      return placed.endpoint;
    case 'repo':
      return placed.repo;
  }
}

/** The row a job belongs to: the local day, ISO week or month it was created in, where it ran, or itself. */
export const groupKey = (job: JobUsage, by: Grouping): string => (by === 'job' ? job.id : keyOf(by, new Date(job.createdAt), job));

/** The median of the lists' values together (an even count: the mean of the middle two): one native sort, ~2 ms for a year's 30,000. */
export function median(lists: readonly (readonly number[])[]): number | undefined {
  const sorted = new Float64Array(lists.reduce((n, l) => n + l.length, 0));
  if (sorted.length === 0) return undefined;
  let at = 0;
  for (const list of lists) {
    sorted.set(list, at);
    at += list.length;
  }
  sorted.sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** What became of the work of the jobs in a row of sums: kept, lost, and the rest unknown. */
function outcomesOf(all: UsageSums): UsageRow['outcomes'] {
  const sum = (at: number): number => all[at] as number;
  return { kept: sum(SUM.kept), lost: sum(SUM.lost), unknown: sum(SUM.succeeded) + sum(SUM.failed) + sum(SUM.other) - sum(SUM.kept) - sum(SUM.lost) };
}

class RowSum {
  /** By the caller's model ('' for jobs without a measured caller cost). */
  readonly sums = new Map<string, UsageSums>();
  /** Per-request speeds: the row's own jobs' in the first list, those of rows merged into it after. */
  readonly promptSpeeds: number[][] = [[]];
  readonly generationSpeeds: number[][] = [[]];

  private sumsOf(callerModel: string): UsageSums {
    let sums = this.sums.get(callerModel);
    if (sums === undefined) this.sums.set(callerModel, (sums = emptySums()));
    return sums;
  }

  add(job: JobUsage): void {
    addJobToSums(this.sumsOf(callerModelOf(job)), job);
    (this.promptSpeeds[0] as number[]).push(...job.promptTokensPerS);
    (this.generationSpeeds[0] as number[]).push(...job.generationTokensPerS);
  }

  addCell(cell: Cell): void {
    mergeSums(this.sumsOf(cell.callerModel), cell.sums);
    this.promptSpeeds.push(cell.promptSpeeds);
    this.generationSpeeds.push(cell.generationSpeeds);
  }

  /** Another row's jobs added: the total is its rows merged, so each job is added once. */
  merge(other: RowSum): void {
    other.sums.forEach((s, model) => mergeSums(this.sumsOf(model), s));
    this.promptSpeeds.push(...other.promptSpeeds);
    this.generationSpeeds.push(...other.generationSpeeds);
  }

  /** Each caller model's sums priced at its prices; models without prices are named, not priced. */
  private priced(own: OwnPrices): { priced: UsageRow['priced']; unpriced: string[] } {
    let callerUsd = 0;
    let localUsd = 0;
    const unpriced: string[] = [];
    for (const [model, s] of this.sums) {
      if (model === '') continue;
      const p = pricesOf(model, own);
      if (p === undefined) {
        unpriced.push(model);
        continue;
      }
      // Work that did not succeed, or was thrown away, saved nothing; what the caller spent on it still counts.
      const succeeded = { evaluated: s[SUM.succeededEvaluated] as number, cacheWritten: s[SUM.succeededCacheWritten] as number, cached: s[SUM.succeededCached] as number, output: s[SUM.succeededOutput] as number };
      callerUsd += callerCostUsd(callerTokensOf(s), p);
      localUsd += localCostUsd(succeeded, p);
    }
    return { priced: { callerUsd, localUsd, netUsd: localUsd - callerUsd }, unpriced: unpriced.sort() };
  }

  private all(): UsageSums {
    const all = emptySums();
    this.sums.forEach((s) => mergeSums(all, s));
    return all;
  }

  outcomes(): UsageRow['outcomes'] {
    return outcomesOf(this.all());
  }

  row(key: string, own: OwnPrices): UsageRow {
    const all = this.all();
    const sum = (at: number): number => all[at] as number;
    const prompt = sum(SUM.evaluated) + sum(SUM.cacheWritten) + sum(SUM.cached);
    const { priced, unpriced } = this.priced(own);
    return {
      key,
      jobs: { succeeded: sum(SUM.succeeded), failed: sum(SUM.failed), other: sum(SUM.other) },
      outcomes: outcomesOf(all),
      turns: sum(SUM.turns),
      requests: sum(SUM.requests),
      evaluated: sum(SUM.evaluated),
      cacheWritten: sum(SUM.cacheWritten),
      cached: sum(SUM.cached),
      output: sum(SUM.output),
      cacheReuse: prompt > 0 ? sum(SUM.cached) / prompt : undefined,
      gpuMs: Math.round(sum(SUM.gpuMs)),
      verify: { jobs: sum(SUM.verifyJobs), passed: sum(SUM.verifyPassed), fixTurns: sum(SUM.fixTurns), fixTokens: sum(SUM.fixTokens) },
      medianPromptTokensPerS: median(this.promptSpeeds),
      medianGenerationTokensPerS: median(this.generationSpeeds),
      caller: {
        measured: sum(SUM.callerMeasured),
        unknown: sum(SUM.callerUnknown),
        pending: sum(SUM.callerPending),
        turns: sum(SUM.callerTurns),
        tokens: callerTokensOf(all),
        models: [...this.sums.keys()].filter((m) => m !== '').sort(),
        unpriced,
      },
      priced,
    };
  }
}

export interface UsageTally {
  add(job: JobUsage): void;
  /** A cell of jobs summed (month-cells.ts); not for the grouping by job. */
  addCell(cell: Cell): void;
  /** In key order (time groupings oldest first). */
  rows(): UsageRow[];
  /** Each row's outcomes alone, in key order: no medians to sort. */
  outcomes(): Array<{ readonly key: string } & UsageRow['outcomes']>;
  total(): UsageRow;
}

export function createUsageTally(by: Grouping, prices: OwnPrices): UsageTally {
  // Time keys are fixed-width digits, where code-unit order is the locale's; it spares loading ICU's collator (~5 ms).
  const keyOrder = by === 'day' || by === 'week' || by === 'month' ? (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0) : (a: string, b: string) => a.localeCompare(b);
  const groups = new Map<string, RowSum>();
  const rowOf = (key: string): RowSum => {
    let sum = groups.get(key);
    if (sum === undefined) groups.set(key, (sum = new RowSum()));
    return sum;
  };
  return {
    add: (job) => rowOf(groupKey(job, by)).add(job),
    addCell(cell) {
      if (by === 'job') throw new Error('a cell has no job to be a row of');
      rowOf(keyOf(by, new Date(cell.start), cell)).addCell(cell);
    },
    rows: () => [...groups.keys()].sort(keyOrder).map((key) => (groups.get(key) as RowSum).row(key, prices)),
    outcomes: () => [...groups.keys()].sort(keyOrder).map((key) => ({ key, ...(groups.get(key) as RowSum).outcomes() })),
    total: () => {
      const all = new RowSum();
      groups.forEach((sum) => all.merge(sum));
      return all.row('total', prices);
    },
  };
}
