/**
 * One job's usage, as `localagents show`, job_status and the dashboard's job
 * page all show it: its requests.jsonl and caller.jsonl summed by the same tally
 * as `localagents usage --by job` (so the row and this line always agree), and
 * one line of text that the three render as it is.
 */
import type { PriceSettings } from '../config/price-settings.js';
import { FINISHED, type JobRecord } from '../jobs/record/job-record.js';
import type { JobStore } from '../jobs/record/job-store.js';
import { callerTokenCount, compactCount, duration, usd } from './format-usage.js';
import { readJobUsage } from './job-usage.js';
import type { CallerLookup } from './report.js';
import { createUsageTally, type UsageRow } from './tally.js';
import type { CallerCost } from './transcripts/caller-cost.js';
import { withCallerCost } from './transcripts/settle-cost.js';

export interface JobUsageSummary {
  /** The job's row, as `localagents usage --by job` has it. */
  readonly row: UsageRow;
  /** What the job cost its caller (measured), why that is unknown, or undefined when not looked up yet. */
  readonly callerCost: CallerCost | undefined;
  /** Only a succeeded job counts as saving anything. */
  readonly counted: boolean;
  /** Lines of its logs that could not be read (left out of the sums). */
  readonly unreadableLines: number;
  /** The one line every audience reads. */
  readonly text: string;
}

function callerText(record: JobRecord, row: UsageRow, cost: CallerCost | undefined): string {
  if (cost === undefined) return 'caller cost not looked up yet';
  if ('unknown' in cost) return `caller cost unknown: ${cost.unknown}`;
  const k = cost.tokens;
  const shared = cost.shared ? '; turns shared with other jobs, split evenly' : '';
  const measured = `caller cost (measured, ${cost.model}${shared}): ${cost.turns} turns, ${compactCount(callerTokenCount(k))} tokens (${compactCount(k.cacheRead)} cache read)`;
  if (row.caller.unpriced.length > 0) return `${measured}; no price for ${cost.model} (add it under defaults.prices)`;
  const p = row.priced;
  const worth =
    record.status === 'succeeded'
      ? `the local tokens would have cost ${usd(p.localUsd)} there: net saved ${usd(p.netUsd)}`
      : 'a job that did not succeed saves nothing';
  return `${measured}, ${usd(p.callerUsd)}*; ${worth} (* computed at published prices)`;
}

function summaryText(record: JobRecord, row: UsageRow, cost: CallerCost | undefined, unreadable: number): string {
  const prompt = row.evaluated + row.cacheWritten + row.cached;
  const reuse = row.cacheReuse === undefined ? '' : ` (${Math.round(row.cacheReuse * 100)}% from cache)`;
  const soFar = FINISHED.has(record.status) ? '' : ' so far';
  const skipped = unreadable > 0 ? `; ${unreadable} unreadable log line(s) not counted` : '';
  return `usage${soFar}: ${row.requests} model requests, ${compactCount(prompt)} prompt tokens${reuse}, ${compactCount(row.output)} output, GPU ${duration(row.gpuMs)}; ${callerText(record, row, cost)}${skipped}`;
}

/** With `lookup`, a caller cost not yet on file is looked up in the caller's transcript (and kept once final). */
export async function jobUsageSummary(record: JobRecord, store: Pick<JobStore, 'root' | 'paths'>, prices: PriceSettings, lookup?: CallerLookup): Promise<JobUsageSummary> {
  let usage = await readJobUsage(record, store.paths(record.id));
  if (lookup !== undefined) usage = await withCallerCost(usage, record, store, lookup.reader, lookup.now);
  const tally = createUsageTally('job', prices.prices);
  tally.add(usage);
  const row = tally.total();
  // A running job's last line may be mid-write; an ended job's is damage.
  const unreadableLines = usage.unreadableLines + (usage.halfWritten && FINISHED.has(record.status) ? 1 : 0);
  const cost = usage.caller.cost;
  return { row, callerCost: cost, counted: record.status === 'succeeded', unreadableLines, text: summaryText(record, row, cost, unreadableLines) };
}

/** The summary for --json, job_status's structured result and the dashboard (snake_case, like every JSON output). */
export function jobUsageJson(summary: JobUsageSummary): Record<string, unknown> {
  const r = summary.row;
  const cost = summary.callerCost;
  const known = cost !== undefined && 'model' in cost && r.caller.unpriced.length === 0;
  return {
    text: summary.text,
    requests: r.requests,
    prompt_tokens_evaluated: r.evaluated,
    prompt_tokens_cache_written: r.cacheWritten,
    prompt_tokens_from_cache: r.cached,
    output_tokens: r.output,
    gpu_ms: r.gpuMs,
    caller:
      cost === undefined
        ? { status: 'not looked up' }
        : 'unknown' in cost
          ? { status: 'unknown', reason: cost.unknown }
          : {
              status: 'measured',
              model: cost.model,
              turns: cost.turns,
              input_tokens: cost.tokens.input,
              cache_read_tokens: cost.tokens.cacheRead,
              cache_write_5m_tokens: cost.tokens.cacheWrite5m,
              cache_write_1h_tokens: cost.tokens.cacheWrite1h,
              output_tokens: cost.tokens.output,
              transcript: cost.transcript,
              ...(cost.shared ? { shared: true } : {}),
            },
    computed: known ? { counted: summary.counted, caller_usd: r.priced.callerUsd, local_usd: r.priced.localUsd, net_usd: r.priced.netUsd } : null,
    unreadable_lines: summary.unreadableLines,
  };
}
