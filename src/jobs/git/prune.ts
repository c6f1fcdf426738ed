/**
 * `localagents prune`: removes finished jobs older than a cutoff — their
 * records, their worktrees and their `local-agent/*` branches — under the one
 * rule of work-retention.ts: a job whose worktree or branch holds anything not
 * reachable elsewhere keeps everything, record included; a worktree path that
 * another job has reused since is never touched.
 */
import { rm } from 'node:fs/promises';
import { FINISHED } from '../record/job-record.js';
import type { JobStore } from '../record/job-store.js';
import { heldWork, leftAloneNote, reasonsToKeep, removeJobWork } from './work-retention.js';
import { refreshOutcomes } from './outcome-check.js';

export interface PruneAction {
  readonly job_id: string;
  readonly removed: boolean;
  /** What was (or, with --dry-run, would be) removed, or why the job was kept. */
  readonly what: string;
}

export interface PruneOptions {
  readonly olderThanMs: number;
  readonly dryRun: boolean;
  /** defaults.worktree_caches: ignored folders that do not keep a worktree. */
  readonly caches: readonly string[];
  readonly now?: Date;
}

export async function pruneJobs(store: JobStore, options: PruneOptions): Promise<PruneAction[]> {
  const cutoff = (options.now ?? new Date()).getTime() - options.olderThanMs;
  const actions: PruneAction[] = [];
  // What git can tell of each job's work is recorded first (a record about to go says it, for --dry-run and for those kept).
  for (const record of await refreshOutcomes(store, (await store.list()).records, 'localagents prune')) {
    if (!FINISHED.has(record.status) || Date.parse(record.finished_at ?? record.created_at) > cutoff) continue;
    const parts = ['record'];
    const wt = record.worktree;
    if (wt?.kept) {
      const job = { repo: record.cwd, path: wt.path, branch: wt.branch, baseCommit: wt.base_commit };
      const held = await heldWork(job, options.caches);
      const reasons = reasonsToKeep(job, held);
      if (reasons.length > 0) {
        const hint = held.changed || held.branchOnly.length > 0 ? ` (localagents merge ${record.id} merges it)` : '';
        actions.push({ job_id: record.id, removed: false, what: `kept: ${reasons.join('; ')}${hint}` });
        continue;
      }
      if (options.dryRun) {
        if (held.ownership.kind === 'ours') parts.push(`worktree ${wt.path}`);
        const note = leftAloneNote(job, held);
        parts.push(`branch ${wt.branch}`, ...(note === undefined ? [] : [note]));
      } else {
        const removal = await removeJobWork(job, held);
        if (removal.failures.length > 0) {
          // The record stays: it still says where the rest of the work is.
          actions.push({ job_id: record.id, removed: false, what: `kept: ${[...removal.removed.map((r) => `removed ${r}`), ...removal.failures].join('; ')}` });
          continue;
        }
        parts.push(...removal.removed, ...(removal.leftAlone === undefined ? [] : [removal.leftAlone]));
      }
    }
    if (!options.dryRun) await rm(store.paths(record.id).dir, { recursive: true, force: true });
    actions.push({ job_id: record.id, removed: true, what: parts.join(', ') });
  }
  return actions;
}
