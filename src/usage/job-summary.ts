/**
 * One job's usage, as `localagents show`, job_status and the dashboard's job
 * page all show it: its requests.jsonl and caller.jsonl summed by the same tally
 * as `localagents usage --by job` (so the row and this line always agree), and
 * one line of text that the three render as it is.
 */
import type { PriceSettings } from '../config/price-settings.js';
import { FINISHED, type JobRecord } from '../jobs/record/job-record.js';
import type { JobPaths } from '../jobs/record/job-store.js';
import { comparison } from './estimate.js';
import { compactCount, duration, estimateUsd } from './format-usage.js';
import { readJobUsage } from './job-usage.js';
import { createUsageTally, type UsageRow } from './tally.js';

export interface JobUsageSummary {
  /** The job's row, as `localagents usage --by job` has it. */
  readonly row: UsageRow;
  /** The Anthropic model the estimate compares with. */
  readonly compareWith: string;
  /** Only a succeeded job counts as saving anything. */
  readonly counted: boolean;
  /** Lines of its logs that could not be read (left out of the sums). */
  readonly unreadableLines: number;
  /** The one line every audience reads. */
  readonly text: string;
}

function summaryText(record: JobRecord, row: UsageRow, compareWith: string, unreadable: number): string {
  const prompt = row.evaluated + row.cacheWritten + row.cached;
  const reuse = row.cacheReuse === undefined ? '' : ` (${Math.round(row.cacheReuse * 100)}% from cache)`;
  const e = row.estimate;
  const soFar = FINISHED.has(record.status) ? '' : ' so far';
  const worth =
    record.status === 'succeeded'
      ? `the same tokens ${estimateUsd(e.anthropicUsd)} on ${compareWith}, delegating cost the caller ${estimateUsd(e.callerUsd)}: saved ${estimateUsd(e.savedUsd)}`
      : `delegating cost the caller ${estimateUsd(e.callerUsd)}${soFar}; a job that did not succeed saves nothing`;
  const skipped = unreadable > 0 ? `; ${unreadable} unreadable log line(s) not counted` : '';
  return `usage${soFar}: ${row.requests} model requests, ${compactCount(prompt)} prompt tokens${reuse}, ${compactCount(row.output)} output, GPU ${duration(row.gpuMs)}; estimate: ${worth}${skipped}`;
}

export async function jobUsageSummary(record: JobRecord, paths: Pick<JobPaths, 'requests' | 'caller'>, prices: PriceSettings): Promise<JobUsageSummary> {
  const compared = comparison(prices);
  const usage = await readJobUsage(record, paths);
  const tally = createUsageTally('job', compared.prices);
  tally.add(usage);
  const row = tally.total();
  // A running job's last line may be mid-write; an ended job's is damage.
  const unreadableLines = usage.unreadableLines + (usage.halfWritten && FINISHED.has(record.status) ? 1 : 0);
  return { row, compareWith: compared.model, counted: record.status === 'succeeded', unreadableLines, text: summaryText(record, row, compared.model, unreadableLines) };
}

/** The summary for --json, job_status's structured result and the dashboard (snake_case, like every JSON output). */
export function jobUsageJson(summary: JobUsageSummary): Record<string, unknown> {
  const r = summary.row;
  return {
    text: summary.text,
    requests: r.requests,
    prompt_tokens_evaluated: r.evaluated,
    prompt_tokens_cache_written: r.cacheWritten,
    prompt_tokens_from_cache: r.cached,
    output_tokens: r.output,
    gpu_ms: r.gpuMs,
    estimate: {
      compare_with: summary.compareWith,
      counted: summary.counted,
      anthropic_usd: r.estimate.anthropicUsd,
      caller_read_tokens: r.estimate.callerReadTokens,
      caller_written_tokens: r.estimate.callerWrittenTokens,
      caller_usd: r.estimate.callerUsd,
      saved_usd: r.estimate.savedUsd,
    },
    unreadable_lines: summary.unreadableLines,
  };
}
