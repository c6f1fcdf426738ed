/**
 * `localagents prune`: removes finished jobs older than a cutoff — their
 * records, their worktrees and their `local-agent/*` branches — but only what
 * holds no unmerged work: a worktree with uncommitted changes, or a branch with
 * commits no other branch contains, keeps its job (record included) untouched.
 */
import { rm } from 'node:fs/promises';
import { git } from './git.js';
import { FINISHED, type JobRecord } from './job-record.js';
import type { JobStore } from './job-store.js';

export interface PruneAction {
  readonly job_id: string;
  readonly removed: boolean;
  /** What was (or, with --dry-run, would be) removed, or why the job was kept. */
  readonly what: string;
}

async function branchExists(repo: string, branch: string): Promise<boolean> {
  return (await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])).ok;
}

/** Why the worktree job's work must stay, or undefined when it is empty or merged elsewhere. */
async function unmergedWork(record: JobRecord): Promise<string | undefined> {
  const wt = record.worktree!;
  const status = await git(wt.path, ['status', '--porcelain']);
  if (status.ok && status.stdout.trim() !== '') return `its worktree ${wt.path} has uncommitted changes`;
  if (!(await branchExists(record.cwd, wt.branch))) return undefined;
  const tip = (await git(record.cwd, ['rev-parse', wt.branch])).stdout.trim();
  if (tip === wt.base_commit) return undefined;
  const holders = (await git(record.cwd, ['for-each-ref', '--contains', tip, '--format=%(refname:short)', 'refs/heads'])).stdout.split('\n').filter((b) => b && b !== wt.branch);
  if (holders.length > 0) return undefined;
  const count = (await git(record.cwd, ['rev-list', '--count', `${wt.base_commit}..${wt.branch}`])).stdout.trim();
  return `branch ${wt.branch} has ${count} unmerged commit(s)`;
}

export async function pruneJobs(store: JobStore, options: { olderThanMs: number; dryRun: boolean; now?: Date }): Promise<PruneAction[]> {
  const cutoff = (options.now ?? new Date()).getTime() - options.olderThanMs;
  const actions: PruneAction[] = [];
  for (const record of (await store.list()).records) {
    if (!FINISHED.has(record.status) || Date.parse(record.finished_at ?? record.created_at) > cutoff) continue;
    const parts = ['record'];
    const wt = record.worktree;
    if (wt?.kept) {
      const why = await unmergedWork(record);
      if (why !== undefined) {
        actions.push({ job_id: record.id, removed: false, what: `kept: ${why} (localagents merge ${record.id} merges it)` });
        continue;
      }
      parts.push(`worktree ${wt.path}`, `branch ${wt.branch}`);
      if (!options.dryRun) {
        await git(record.cwd, ['worktree', 'remove', '--force', wt.path]);
        if (await branchExists(record.cwd, wt.branch)) await git(record.cwd, ['branch', '-D', wt.branch]);
      }
    }
    if (!options.dryRun) await rm(store.paths(record.id).dir, { recursive: true, force: true });
    actions.push({ job_id: record.id, removed: true, what: parts.join(', ') });
  }
  return actions;
}

/** `7d`, `12h`, `30m`, `2w` → milliseconds; undefined when it is not one of those. */
export function parseAge(text: string): number | undefined {
  const match = /^(\d+)([smhdw])$/.exec(text.trim());
  if (!match) return undefined;
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[match[2] as 's' | 'm' | 'h' | 'd' | 'w'];
  return Number(match[1]) * unit;
}
