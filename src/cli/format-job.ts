/**
 * How the CLI shows jobs to a person: the one-screen report after a run, the
 * `show` page and the `jobs` table. Pure: records in, text out.
 */
import { describeSandboxRecord } from '../jobs/sandbox/record.js';
import type { JobRecord } from '../jobs/job-record.js';
import { FINISHED } from '../jobs/job-record.js';
import type { JobPaths } from '../jobs/job-store.js';
import { elapsedSeconds } from '../jobs/job-record.js';
import { verificationLine } from '../jobs/verify/record.js';

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const s = Math.floor(seconds);
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

const trimZeros = (s: string): string => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s);

/** 950 → "950", 12_345 → "12.3k", 2_500_000 → "2.5M"; at most three significant digits. */
export function formatCount(n: number): string {
  const r = Math.round(n);
  if (r < 1000) return String(r);
  if (r < 999_950) return `${trimZeros((r / 1000).toFixed(r < 9995 ? 2 : 1))}k`;
  return `${trimZeros((r / 1_000_000).toFixed(1))}M`;
}

export function modelLabel(record: JobRecord): string {
  const model = record.model.served ?? record.model.requested ?? 'model not chosen yet';
  return record.model.endpoint ? `${model} on ${record.model.endpoint}` : model;
}

function tokensLine(record: JobRecord): string {
  const u = record.usage;
  const cached = u.cache_read_input_tokens > 0 ? ` (+${formatCount(u.cache_read_input_tokens)} cached)` : '';
  return `turns ${record.num_turns} · tool calls ${record.tool_calls} · model requests ${record.requests} · tokens in ${formatCount(u.input_tokens)}${cached}, out ${formatCount(u.output_tokens)}`;
}

/** The worktree part of a report: where it is, what changed, how to review, merge or drop it. */
export function worktreeLines(record: JobRecord): string[] {
  const wt = record.worktree;
  if (wt === undefined) return [];
  if (!wt.kept) {
    const caches = wt.ignored_files !== undefined && wt.ignored_files.length > 0 ? ` (only build caches were left: ${wt.ignored_files.join(', ')})` : '';
    return [`worktree: nothing changed${caches}, so ${wt.path} and branch ${wt.branch} were removed`];
  }
  const lines = [`worktree kept: ${wt.path} (branch ${wt.branch}, base ${wt.base_commit.slice(0, 12)}${wt.commits > 0 ? `, ${wt.commits} commits` : ''})`];
  if (wt.diffstat) lines.push(...wt.diffstat.split('\n').map((l) => `  ${l.trim()}`));
  lines.push(`  review: localagents diff ${record.id}`);
  for (const [what, command] of Object.entries(wt.commands)) if (what !== 'review') lines.push(`  ${what}: ${command}`);
  return lines;
}

/** What `run` prints when the job ends, and the head of `show`. */
export function jobReport(record: JobRecord): string {
  const finished = FINISHED.has(record.status);
  const lines = [`job ${record.id}: ${record.status} ${finished ? 'after' : 'for'} ${formatDuration(elapsedSeconds(record))} — ${modelLabel(record)}`];
  if (record.verification) lines.push(verificationLine(record.verification));
  if (record.queue) lines.push(`queued: position ${record.queue.position}, waiting for ${record.queue.waiting_for}`);
  lines.push(tokensLine(record));
  if (record.last_activity && !finished) lines.push(`last activity: ${record.last_activity.what}`);
  if (record.result) lines.push(`result: ${record.result}`);
  if (record.error) lines.push(`error: ${record.error}`);
  if (record.files_touched.length > 0) lines.push(`files touched: ${record.files_touched.join(', ')}`);
  lines.push(...worktreeLines(record));
  for (const warning of record.warnings) lines.push(`warning: ${warning}`);
  if (record.status === 'interrupted' && record.session_id) lines.push(`continue it: in Claude Code, ask Claude to resume localagents job ${record.id}`);
  return lines.join('\n');
}

/** `localagents show`: the report plus where everything is. */
export function jobDetails(record: JobRecord, paths: JobPaths): string {
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
    ['endpoint', record.model.endpoint_reason],
    ['menu entry', record.model.menu_entry],
    ['settings from', record.setting_sources?.join(', ')],
    ['sandbox', record.sandbox ? describeSandboxRecord(record.sandbox) : undefined],
    ['context', record.model.context !== undefined ? `${record.model.context} tokens (${record.model.context_source ?? '?'})` : undefined],
    ['cache', record.metrics?.cache_hit_ratio !== undefined ? `${Math.round(record.metrics.cache_hit_ratio * 100)}% of prompt tokens reused (server-wide counters)` : undefined],
    ['transcript', paths.transcript],
    ['requests', paths.requests],
    ['record', paths.record],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const table = rows.filter(([, v]) => v !== undefined).map(([k, v]) => `${k.padEnd(width)}  ${String(v)}`);
  return `${jobReport(record)}\n\n${table.join('\n')}`;
}

function clip(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > width ? `${flat.slice(0, Math.max(1, width - 1))}…` : flat;
}

/** `localagents jobs`: one row per job, oldest first, the task clipped to the terminal width. */
export function jobTable(records: readonly JobRecord[], columns = 120): string {
  const head = ['ID', 'STATUS', 'ELAPSED', 'MODEL', 'TASK'];
  const rows = records.map((r) => [r.id, r.status, formatDuration(elapsedSeconds(r)), modelLabel(r), r.task_preview]);
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
