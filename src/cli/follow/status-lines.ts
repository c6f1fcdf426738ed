/**
 * The few lines of the live status area under `localagents run`: status,
 * elapsed, turn, tool calls, tokens, the last request's speed and cache reuse,
 * the last activity. Pure: the display decides when and where to draw them.
 */
import type { JobRecord } from '../../jobs/job-record.js';
import { elapsedSeconds } from '../../jobs/job-record.js';
import { inFlightLine } from '../../jobs/in-flight-line.js';
import { formatCount, formatDuration } from '../../jobs/amounts.js';
import { modelLabel } from '../format-job.js';
import { outageWords } from '../../shim/outage-hold.js';
import type { RequestStats, RequestTotals } from './request-stats.js';

const SPINNER = ['-', '\\', '|', '/'];

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function lastRequestText(stats: RequestStats | undefined): string {
  if (stats === undefined) return 'last request: none yet';
  const parts = [`last request: HTTP ${stats.status}`];
  if (stats.promptTokensPerS !== undefined) parts.push(`prompt ${formatCount(stats.promptTokensPerS)} tok/s`);
  if (stats.cacheReuse !== undefined) parts.push(`cache reuse ${Math.round(stats.cacheReuse * 100)}%`);
  if (stats.outputTokensPerS !== undefined) parts.push(`output ${formatCount(stats.outputTokensPerS)} tok/s`);
  return parts.join(', ');
}

/** Live tokens come from requests.jsonl: the record's usage is filled in only when the session ends. */
export function statusLines(record: JobRecord, totals: RequestTotals, now: Date, frame: number): string[] {
  const spin = SPINNER[frame % SPINNER.length] ?? '-';
  const lines = [`${spin} ${record.status} ${formatDuration(elapsedSeconds(record, now))} · turn ${record.num_turns} · ${plural(record.tool_calls, 'tool call')} · ${modelLabel(record)}`];
  if (record.queue) lines.push(`  queued: position ${record.queue.position}, waiting for ${record.queue.waiting_for}`);
  lines.push(`  tokens in ${formatCount(totals.inputTokens)} (+${formatCount(totals.cachedTokens)} cached), out ${formatCount(totals.outputTokens)} over ${plural(totals.requests, 'request')}`);
  lines.push(`  ${lastRequestText(totals.last)}`);
  if (record.outage_wait) lines.push(`  waiting for the model server: ${outageWords(record.outage_wait, now)}`);
  for (const request of record.in_flight ?? []) lines.push(...inFlightLine(request, now).split('\n').map((l) => `  ${l}`));
  if (record.last_activity) lines.push(`  last activity ${record.last_activity.at.slice(11, 19)}: ${record.last_activity.what}`);
  lines.push('  Ctrl-C: cancel or detach');
  return lines;
}
