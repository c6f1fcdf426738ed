/**
 * The few lines of the live status area under `localagents run`: the job's
 * facts that change while it runs (jobs/job-facts.ts), in a person's words
 * (jobs/person-words.ts, as the report at the end and the dashboard word them),
 * under a headline of its own (a spinner; no id: the start line gave it), plus
 * what only a live view has: the last request's speed and cache reuse, and how
 * to stop. Pure: the display decides when and where to draw them.
 */
import { formatCount, formatDuration } from '../../amounts.js';
import { jobFacts, renderFactsByKey, type FactKey } from '../../jobs/view/job-facts.js';
import type { JobRecord } from '../../jobs/record/job-record.js';
import { forPerson, modelWords } from '../../jobs/view/person-words.js';
import type { RequestStats } from '../../jobs/tracking/request-stats.js';

const SPINNER = ['-', '\\', '|', '/'];

/** The facts worth a line while the job runs; the rest (result, files, worktree, …) is in the report when it ends. */
export const LIVE_FACTS: ReadonlySet<FactKey> = new Set<FactKey>(['verification', 'queue', 'work', 'outage_wait', 'in_flight', 'backend_error', 'last_activity']);

function lastRequestText(stats: RequestStats | undefined): string {
  if (stats === undefined) return 'last request: none yet';
  const parts = [`last request: HTTP ${stats.status}`];
  if (stats.promptTokensPerS !== undefined) parts.push(`prompt ${formatCount(stats.promptTokensPerS)} tok/s`);
  if (stats.cacheReuse !== undefined) parts.push(`cache reuse ${Math.round(stats.cacheReuse * 100)}%`);
  if (stats.outputTokensPerS !== undefined) parts.push(`output ${formatCount(stats.outputTokensPerS)} tok/s`);
  return parts.join(', ');
}

export function statusLines(record: JobRecord, last: RequestStats | undefined, now: Date, frame: number): string[] {
  const spin = SPINNER[frame % SPINNER.length] ?? '-';
  const facts = jobFacts(record, undefined, now);
  const h = facts.headline;
  const live = renderFactsByKey(facts, forPerson(record.id)).filter((f) => LIVE_FACTS.has(f.fact));
  return [
    `${spin} ${h.status} ${formatDuration(h.elapsedS)} · ${modelWords(h.model, h.endpoint)}`,
    ...live.flatMap((f) => f.lines.flatMap((l) => l.split('\n'))).map((l) => `  ${l}`),
    `  ${lastRequestText(last)}`,
    '  Ctrl-C: cancel or detach',
  ];
}
