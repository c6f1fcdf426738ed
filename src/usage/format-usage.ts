/**
 * The usage report for a person: a table, one row per group, a total line, what
 * the callers spent (measured from their transcripts) and the dollars (computed at
 * published prices), each labelled for what it is. Numbers are rounded to what they
 * can carry: dollars to two significant digits, tokens to three.
 */
import { keptWords } from '../jobs/record/outcome.js';
import type { UsageReport } from './report.js';
import type { UsageRow } from './tally.js';
import type { CallerTokens } from './transcripts/transcript-turns.js';

export function compactCount(n: number): string {
  if (n < 1000) return String(Math.round(n));
  const scale = n < 1e6 ? 1e3 : n < 1e9 ? 1e6 : 1e9;
  return `${Number((n / scale).toPrecision(3))}${scale === 1e3 ? 'k' : scale === 1e6 ? 'M' : 'G'}`;
}

/** `$3.90`, `−$0.12`, `$0.0041`: a computed amount, at two significant digits. */
export function usd(amount: number): string {
  const abs = Math.abs(amount);
  if (abs === 0) return '$0';
  const text = `$${abs < 0.01 ? Number(abs.toPrecision(2)) : Number(abs.toPrecision(2)).toFixed(abs < 1 ? 2 : abs < 10 ? 1 : 0)}`;
  return amount < 0 ? `−${text}` : text;
}

export const callerTokenCount = (t: CallerTokens): number => t.input + t.cacheRead + t.cacheWrite5m + t.cacheWrite1h + t.output;

export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

const percent = (ratio: number | undefined): string => (ratio === undefined ? '–' : `${Math.round(ratio * 100)}%`);
const speed = (perS: number | undefined): string => (perS === undefined ? '–' : compactCount(perS));

export const USAGE_HEADER = [
  '', 'jobs ok/failed/other', 'turns', 'requests', 'prompt evaluated', 'from cache', 'output', 'cache reuse', 'GPU time', 'prompt t/s', 'gen t/s',
  'kept/lost/unknown', 'caller known', 'caller turns', 'caller tokens', 'caller $*', 'net saved $*',
];

/** The row's dollars, or a dash where no job has a measured, priced caller cost. */
const money = (row: UsageRow, amount: number): string => (row.caller.models.some((m) => !row.caller.unpriced.includes(m)) ? usd(amount) : '–');

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
    `${row.outcomes.kept}/${row.outcomes.lost}/${row.outcomes.unknown}`,
    `${row.caller.measured}/${row.caller.measured + row.caller.unknown + row.caller.pending}`,
    String(row.caller.turns),
    compactCount(callerTokenCount(row.caller.tokens)),
    money(row, row.priced.callerUsd),
    money(row, row.priced.netUsd),
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

/** The total, the callers' side and the dollars, in words: under the CLI table and the dashboard's. */
export function usageTotalLines(report: UsageReport): string[] {
  const t = report.total;
  const jobs = t.jobs.succeeded + t.jobs.failed + t.jobs.other;
  const c = t.caller;
  const k = c.tokens;
  const callers =
    c.measured === 0
      ? `caller: cost unknown for every job (${c.unknown} not found, ${c.pending} not looked up yet; \`localagents show JOB\` says why), so no saving is shown`
      : `caller (measured from their transcripts, ${c.measured} of ${jobs} jobs; ${c.unknown} unknown, ${c.pending} not looked up yet): ${c.turns} turns on ${c.models.join(', ')}, ` +
        `${compactCount(k.input)} input, ${compactCount(k.cacheRead)} cache read, ${compactCount(k.cacheWrite5m)} + ${compactCount(k.cacheWrite1h)} cache written (5 min + 1 h), ${compactCount(k.output)} output tokens`;
  const unpriced = c.unpriced.length === 0 ? '' : `; no price for ${c.unpriced.join(', ')} (add it under defaults.prices): those jobs are not in the dollars`;
  const p = t.priced;
  return [
    `total: ${jobs} jobs (${t.jobs.succeeded} succeeded, ${t.jobs.failed} failed, ${t.jobs.other} other), ${t.requests} model requests, ` +
      `${compactCount(t.evaluated + t.cacheWritten + t.cached)} prompt tokens (${percent(t.cacheReuse)} from cache), ${compactCount(t.output)} output, GPU ${duration(t.gpuMs)}`,
    callers,
    ...(c.measured === 0
      ? []
      : [
          `* computed at published prices (${report.prices.asOf}; defaults.prices overrides) on each caller's model: the succeeded jobs' local tokens would have cost ${usd(p.localUsd)}, ` +
            `delegating cost the callers ${usd(p.callerUsd)}: net saved ${usd(p.netUsd)} (jobs that failed or whose work was lost saved nothing)${unpriced}`,
        ]),
    ...(report.keptByModel.length === 0
      ? []
      : [`jobs kept (merged or committed; lost: discarded, reverted or followed up; unknown: neither yet): ${report.keptByModel.map(keptWords).join('; ')}`]),
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
