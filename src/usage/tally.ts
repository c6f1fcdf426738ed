/**
 * Usage rows: jobs grouped by day, week, month, model, endpoint, repo or job,
 * each row the sums, medians and estimate of its jobs. Pure; fed one job at a
 * time, so a report over 10,000 jobs holds rows, not records.
 */
import type { ModelPrices } from '../config/prices.js';
import { anthropicCostUsd, callerCostUsd, callerTokens } from './estimate.js';
import type { JobUsage } from './job-usage.js';

export const GROUPINGS = ['day', 'week', 'month', 'model', 'endpoint', 'repo', 'job'] as const;
export type Grouping = (typeof GROUPINGS)[number];

export interface UsageRow {
  readonly key: string;
  readonly jobs: { readonly succeeded: number; readonly failed: number; readonly other: number };
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
  readonly estimate: {
    /** The succeeded jobs' tokens at the compared model's prices. */
    readonly anthropicUsd: number;
    /** Tokens the caller read (tool results) and wrote (arguments, the brief among them), by the bytes rule. */
    readonly callerReadTokens: number;
    readonly callerWrittenTokens: number;
    /** What every job (failed ones too) cost the caller. */
    readonly callerUsd: number;
    readonly savedUsd: number;
  };
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** ISO 8601 week (`2026-W49`) of a local calendar date. */
function isoWeek(d: Date): string {
  const day = new Date(d.getFullYear(), d.getMonth(), d.getDate());
  const weekday = (day.getDay() + 6) % 7; // Monday 0
  day.setDate(day.getDate() - weekday + 3); // the Thursday of this week decides the year
  const firstThursday = new Date(day.getFullYear(), 0, 4);
  const week = 1 + Math.round(((day.getTime() - firstThursday.getTime()) / 86_400_000 - 3 + ((firstThursday.getDay() + 6) % 7)) / 7);
  return `${day.getFullYear()}-W${pad(week)}`;
}

/** The local calendar day of an instant, `2026-12-02`. */
export function localDay(at: Date): string {
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}

/** The row a job belongs to; time groupings go by when the job was created, in local time. */
export function groupKey(job: JobUsage, by: Grouping): string {
  const created = new Date(job.createdAt);
  switch (by) {
    case 'day':
      return localDay(created);
    case 'week':
      return isoWeek(created);
    case 'month':
      return localDay(created).slice(0, 7);
    case 'model':
      return job.model;
    case 'endpoint':
      return job.endpoint;
    case 'repo':
      return job.repo;
    case 'job':
      return job.id;
  }
}

export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid]) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

class RowSum {
  succeeded = 0;
  failed = 0;
  other = 0;
  turns = 0;
  requests = 0;
  evaluated = 0;
  cacheWritten = 0;
  cached = 0;
  output = 0;
  gpuMs = 0;
  promptSpeeds: number[] = [];
  generationSpeeds: number[] = [];
  anthropicUsd = 0;
  callerUsd = 0;
  callerRead = 0;
  callerWritten = 0;
  verify = { jobs: 0, passed: 0, fixTurns: 0, fixTokens: 0 };

  add(job: JobUsage, prices: ModelPrices): void {
    if (job.status === 'succeeded') this.succeeded++;
    else if (job.status === 'failed' || job.status === 'timeout') this.failed++;
    else this.other++;
    this.turns += job.turns;
    this.requests += job.requests;
    this.evaluated += job.tokens.evaluated;
    this.cacheWritten += job.tokens.cacheWritten;
    this.cached += job.tokens.cached;
    this.output += job.tokens.output;
    this.gpuMs += job.gpuMs;
    for (const s of job.promptTokensPerS) this.promptSpeeds.push(s);
    for (const s of job.generationTokensPerS) this.generationSpeeds.push(s);
    // Work that did not succeed saved nothing; what the caller spent on it still counts.
    if (job.status === 'succeeded') this.anthropicUsd += anthropicCostUsd(job.tokens, prices);
    this.callerUsd += callerCostUsd(job.caller, prices);
    this.callerRead += callerTokens(job.caller.resultBytes);
    this.callerWritten += callerTokens(job.caller.argsBytes);
    if (job.verify !== undefined) {
      this.verify.jobs++;
      if (job.verify.passed) this.verify.passed++;
      this.verify.fixTurns += job.verify.fixTurns;
      this.verify.fixTokens += job.verify.fixTokens;
    }
  }

  row(key: string): UsageRow {
    const prompt = this.evaluated + this.cacheWritten + this.cached;
    return {
      key,
      jobs: { succeeded: this.succeeded, failed: this.failed, other: this.other },
      turns: this.turns,
      requests: this.requests,
      evaluated: this.evaluated,
      cacheWritten: this.cacheWritten,
      cached: this.cached,
      output: this.output,
      cacheReuse: prompt > 0 ? this.cached / prompt : undefined,
      gpuMs: Math.round(this.gpuMs),
      verify: { ...this.verify },
      medianPromptTokensPerS: median(this.promptSpeeds),
      medianGenerationTokensPerS: median(this.generationSpeeds),
      estimate: {
        anthropicUsd: this.anthropicUsd,
        callerReadTokens: this.callerRead,
        callerWrittenTokens: this.callerWritten,
        callerUsd: this.callerUsd,
        savedUsd: this.anthropicUsd - this.callerUsd,
      },
    };
  }
}

export interface UsageTally {
  add(job: JobUsage): void;
  /** In key order (time groupings oldest first). */
  rows(): UsageRow[];
  total(): UsageRow;
}

export function createUsageTally(by: Grouping, prices: ModelPrices): UsageTally {
  const groups = new Map<string, RowSum>();
  const all = new RowSum();
  return {
    add(job) {
      const key = groupKey(job, by);
      let sum = groups.get(key);
      if (sum === undefined) groups.set(key, (sum = new RowSum()));
      sum.add(job, prices);
      all.add(job, prices);
    },
    rows: () => [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([key, sum]) => sum.row(key)),
    total: () => all.row('total'),
  };
}
