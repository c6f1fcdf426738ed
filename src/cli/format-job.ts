/**
 * How the CLI shows jobs to a person: the one-screen report after a run, the
 * `show` page and the `jobs` table: the job's facts in a person's words
 * (jobs/person-words.ts, as the dashboard's job page shows them); the calling
 * model reads the same facts through mcp/job-view.ts.
 * Pure: records in, text out.
 */
import { formatDuration } from '../amounts.js';
import { jobListRow } from '../jobs/view/job-facts.js';
import type { JobRecord } from '../jobs/record/job-record.js';
import { elapsedSeconds, FINISHED } from '../jobs/record/job-record.js';
import type { JobPaths } from '../jobs/record/job-store.js';
import { modelWords, personFactLines } from '../jobs/view/person-words.js';

/** What `run` prints when the job ends, and the head of `show` (with the usage summary's line under the tokens). */
export function jobReport(record: JobRecord, usageLine?: string): string {
  return personFactLines(record, usageLine)
    .flatMap((f) => f.lines)
    .join('\n');
}

/** `localagents show`: the report plus where everything is. */
export function jobDetails(record: JobRecord, paths: JobPaths, usageLine?: string): string {
  const rows: Array<[string, string | number | undefined]> = [
    ['task', record.task_preview.replace(/\s+/g, ' ')],
    ['cwd', record.cwd],
    ['work dir', record.work_dir !== record.cwd ? record.work_dir : undefined],
    ['isolation', record.isolation],
    ['permissions', `${record.permission_mode}; max ${record.max_turns} turns, timeout ${record.timeout_s} s`],
    ['created', record.created_at],
    ['started', record.started_at],
    ['finished', record.finished_at],
    ['session', record.session_id],
    ['resumed from', record.resumed_from],
    ['server pid', FINISHED.has(record.status) ? undefined : record.owner_pid],
    ['claude pid', FINISHED.has(record.status) ? undefined : record.claude_pid],
    ['menu entry', record.model.menu_entry],
    ['settings from', record.setting_sources?.join(', ')],
    ['context', record.model.context !== undefined ? `${record.model.context} tokens (${record.model.context_source ?? '?'})` : undefined],
    ['cache', record.metrics?.cache_hit_ratio !== undefined ? `${Math.round(record.metrics.cache_hit_ratio * 100)}% of prompt tokens reused (server-wide counters)` : undefined],
    ['transcript', paths.transcript],
    ['requests', paths.requests],
    ['record', paths.record],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const table = rows.filter(([, v]) => v !== undefined).map(([k, v]) => `${k.padEnd(width)}  ${String(v)}`);
  return `${jobReport(record, usageLine)}\n\n${table.join('\n')}`;
}

function clip(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > width ? `${flat.slice(0, Math.max(1, width - 1))}…` : flat;
}

/** `localagents jobs`: one row per job, oldest first, the task clipped to the terminal width. */
export function jobTable(records: readonly JobRecord[], columns = 120): string {
  const head = ['ID', 'STATUS', 'ELAPSED', 'MODEL', 'TASK'];
  const rows = records.map((record) => {
    const r = jobListRow(record);
    return [r.id, r.status, formatDuration(elapsedSeconds(record)), modelWords(r.model, r.endpoint), r.task];
  });
  const widths = head.slice(0, 4).map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const used = widths.reduce((a, b) => a + b + 2, 0);
  const taskWidth = Math.max(20, columns - used - 1);
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i < 4 ? c.padEnd(widths[i] ?? 0) : clip(c, taskWidth))).join('  ').trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}

/** A record for --json: the record as stored plus elapsed_s (snake_case, like every --json output). */
export function jobJson(record: JobRecord): Record<string, unknown> {
  return { ...record, elapsed_s: elapsedSeconds(record) };
}
