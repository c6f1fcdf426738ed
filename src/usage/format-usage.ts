/**
 * The usage report for a person: a table, one row per group, a total line and
 * the estimate with what it is based on. Numbers are rounded to what they can
 * carry: dollars to two significant digits, tokens to three.
 */
import type { UsageReport } from './report.js';
import type { UsageRow } from './tally.js';
import { CALLER_BYTES_PER_TOKEN } from './estimate.js';

export function compactCount(n: number): string {
  if (n < 1000) return String(Math.round(n));
  const scale = n < 1e6 ? 1e3 : n < 1e9 ? 1e6 : 1e9;
  return `${Number((n / scale).toPrecision(3))}${scale === 1e3 ? 'k' : scale === 1e6 ? 'M' : 'G'}`;
}

/** `~$3.90`, `-~$0.12`, `<$0.01`: an estimate, at two significant digits. */
export function estimateUsd(usd: number): string {
  const abs = Math.abs(usd);
  if (abs === 0) return '$0';
  const text = abs < 0.01 ? '<$0.01' : `~$${Number(abs.toPrecision(2)).toFixed(abs < 1 ? 2 : abs < 10 ? 1 : 0)}`;
  return usd < 0 ? `−${text}` : text;
}

export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

const percent = (ratio: number | undefined): string => (ratio === undefined ? '–' : `${Math.round(ratio * 100)}%`);
const speed = (perS: number | undefined): string => (perS === undefined ? '–' : compactCount(perS));

export const USAGE_HEADER = ['', 'jobs ok/failed/other', 'turns', 'requests', 'prompt evaluated', 'from cache', 'output', 'cache reuse', 'GPU time', 'prompt t/s', 'gen t/s', 'saved (est.)'];

/** One row as both the CLI table and the dashboard show it. */
export function usageCells(row: UsageRow): string[] {
  return [
    row.key,
    `${row.jobs.succeeded}/${row.jobs.failed}/${row.jobs.other}`,
    String(row.turns),
    String(row.requests),
    compactCount(row.evaluated + row.cacheWritten),
    compactCount(row.cached),
    compactCount(row.output),
    percent(row.cacheReuse),
    duration(row.gpuMs),
    speed(row.medianPromptTokensPerS),
    speed(row.medianGenerationTokensPerS),
    estimateUsd(row.estimate.savedUsd),
  ];
}

function table(rows: readonly string[][]): string {
  const widths = USAGE_HEADER.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ').trimEnd()).join('\n');
}

export function usageText(report: UsageReport): string {
  const t = report.total;
  const jobs = t.jobs.succeeded + t.jobs.failed + t.jobs.other;
  if (jobs === 0) return 'no jobs on record in this window';
  return [table([USAGE_HEADER, ...report.rows.map(usageCells)]), '', ...usageTotalLines(report)].join('\n');
}

/** The total and the estimate, in words: under the CLI table and the dashboard's. */
export function usageTotalLines(report: UsageReport): string[] {
  const t = report.total;
  const jobs = t.jobs.succeeded + t.jobs.failed + t.jobs.other;
  const c = report.comparison;
  const chosen = c.chosenBy === 'default' ? 'the default; set defaults.compare_with to the model you use' : 'defaults.compare_with';
  return [
    `total: ${jobs} jobs (${t.jobs.succeeded} succeeded, ${t.jobs.failed} failed, ${t.jobs.other} other), ${t.requests} model requests, ` +
      `${compactCount(t.evaluated + t.cacheWritten + t.cached)} prompt tokens (${percent(t.cacheReuse)} from cache), ${compactCount(t.output)} output, GPU ${duration(t.gpuMs)}`,
    `estimate vs ${c.model} (${chosen}; prices ${c.pricesFrom}): the succeeded jobs' tokens would cost ${estimateUsd(t.estimate.anthropicUsd)} there; ` +
      `delegating cost the caller ${estimateUsd(t.estimate.callerUsd)} (${compactCount(t.estimate.callerReadTokens)} tokens read, ${compactCount(t.estimate.callerWrittenTokens)} written, ` +
      `at ${CALLER_BYTES_PER_TOKEN} bytes a token); saved ${estimateUsd(t.estimate.savedUsd)}`,
    ...(t.verify.jobs === 0
      ? []
      : [
          `verify: ${t.verify.jobs} jobs had a check, ${t.verify.passed} passed it; fixing after failed checks took the local models ${t.verify.fixTurns} turns and ` +
            `${compactCount(t.verify.fixTokens)} tokens (the review-and-redelegate rounds the caller did not do)`,
        ]),
  ];
}

/** Notes for stderr: what could not be read, by name. */
export function usageProblems(report: UsageReport): string[] {
  return [
    ...report.damaged.map((d) => `damaged job record ${d.id}: ${d.file}: ${d.problem} (not counted)`),
    ...report.unreadable.map(
      (u) => `job ${u.id}: ${u.lines} unreadable log line(s)${u.halfWritten ? ', and a half-written last line' : ''} (not counted)`,
    ),
  ];
}
