/**
 * A job's facts (job-facts.ts) worded for a person: the one rendering behind
 * `localagents run`'s report, `show` and the dashboard's job page. The calling
 * model reads the same facts through mcp/job-view.ts.
 */
import { formatCount, formatDuration } from '../../amounts.js';
import { jobFacts, renderFactsByKey, SHARED_WORDS, type FactLines, type FactRenderer, type JobFactValues } from './job-facts.js';
import type { JobRecord } from '../record/job-record.js';

/** "qwen on gpu", or that no model is chosen yet. */
export const modelWords = (model: string | undefined, endpoint: string | undefined): string => `${model ?? 'model not chosen yet'}${endpoint ? ` on ${endpoint}` : ''}`;

/** turns, tool calls, requests and tokens in one line. */
export function workWords(w: JobFactValues['work']): string {
  const cached = w.tokens.cached > 0 ? ` (+${formatCount(w.tokens.cached)} cached)` : '';
  return `turns ${w.turns} · tool calls ${w.toolCalls} · model requests ${w.requests} · tokens in ${formatCount(w.tokens.input)}${cached}, out ${formatCount(w.tokens.output)}`;
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

/** Every fact, worded for a person (the worktree's review line needs the job id). */
export function forPerson(id: string): FactRenderer {
  return {
    ...SHARED_WORDS,
    headline: (h) => [`job ${h.id}: ${h.status} ${h.finished ? 'after' : 'for'} ${formatDuration(h.elapsedS)} — ${modelWords(h.model, h.endpoint)}`],
    work: (w) => [workWords(w)],
    error: (e) => [`error: ${e.message}`],
    worktree: (wt) => worktreeLines(wt, id),
    logs: (dir) => [`logs: ${dir}`],
    resumable: (r) => [`continue it: in Claude Code, ask Claude to resume localagents job ${r.id}`],
  };
}

/** The record's facts for a person, fact by fact (the dashboard's job page places each one); `usageLine` as jobFacts takes it. */
export function personFactLines(record: JobRecord, usageLine?: string): FactLines[] {
  return renderFactsByKey(jobFacts(record, usageLine), forPerson(record.id));
}
