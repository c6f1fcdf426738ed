/**
 * How the CLI shows jobs to a person: the one-screen report after a run, the
 * `show` page and the `jobs` table: the job's facts (jobs/job-facts.ts) worded
 * for a person; the calling model reads the same facts through mcp/job-view.ts.
 * Pure: records in, text out.
 */
import { formatCount, formatDuration } from '../jobs/amounts.js';
import { jobFacts, jobListRow, renderFacts, SHARED_WORDS, type FactRenderer, type JobFactValues } from '../jobs/job-facts.js';
import type { JobRecord } from '../jobs/job-record.js';
import { elapsedSeconds, FINISHED } from '../jobs/job-record.js';
import type { JobPaths } from '../jobs/job-store.js';

const modelWords = (model: string | undefined, endpoint: string | undefined): string => `${model ?? 'model not chosen yet'}${endpoint ? ` on ${endpoint}` : ''}`;

export function modelLabel(record: JobRecord): string {
  return modelWords(record.model.served ?? record.model.requested, record.model.endpoint);
}

/** The worktree part of a report: where it is, what changed, how to review, merge or drop it. */
function worktreeLines(wt: JobFactValues['worktree'], id: string): string[] {
  if (!wt.kept) {
    const caches = wt.ignored_files !== undefined && wt.ignored_files.length > 0 ? ` (only build caches were left: ${wt.ignored_files.join(', ')})` : '';
    return [`worktree: nothing changed${caches}, so ${wt.path} and branch ${wt.branch} were removed`];
  }
  const lines = [`${wt.finished ? 'worktree kept' : 'worktree'}: ${wt.path} (branch ${wt.branch}, base ${wt.base_commit.slice(0, 12)}${wt.commits > 0 ? `, ${wt.commits} commits` : ''})`];
  if (wt.diffstat) lines.push(...wt.diffstat.split('\n').map((l) => `  ${l.trim()}`));
  lines.push(`  review: localagents diff ${id}`);
  for (const [what, command] of Object.entries(wt.commands)) if (what !== 'review') lines.push(`  ${what}: ${command}`);
  return lines;
}

/** Every fact, worded for a person at a terminal (the worktree's review line needs the job id). */
function forPerson(id: string): FactRenderer {
  return {
    ...SHARED_WORDS,
    headline: (h) => [`job ${h.id}: ${h.status} ${h.finished ? 'after' : 'for'} ${formatDuration(h.elapsedS)} — ${modelWords(h.model, h.endpoint)}`],
    work: (w) => {
      const cached = w.tokens.cached > 0 ? ` (+${formatCount(w.tokens.cached)} cached)` : '';
      return [`turns ${w.turns} · tool calls ${w.toolCalls} · model requests ${w.requests} · tokens in ${formatCount(w.tokens.input)}${cached}, out ${formatCount(w.tokens.output)}`];
    },
    error: (e) => [`error: ${e.message}`],
    worktree: (wt) => worktreeLines(wt, id),
    logs: (dir) => [`logs: ${dir}`],
    resumable: (r) => [`continue it: in Claude Code, ask Claude to resume localagents job ${r.id}`],
  };
}

/** What `run` prints when the job ends, and the head of `show` (with the usage summary's line under the tokens). */
export function jobReport(record: JobRecord, usageLine?: string): string {
  return renderFacts(jobFacts(record, usageLine), forPerson(record.id)).join('\n');
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
