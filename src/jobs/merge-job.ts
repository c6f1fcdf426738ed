/**
 * `localagents merge JOB`: the worktree's uncommitted work is committed on its
 * branch, and the branch merged into the caller's current branch. A merge that
 * conflicts is aborted (the caller's tree stays as it was) and the error gives
 * the commands to finish it by hand.
 */
import { LocalAgentsError } from '../errors.js';
import { git } from './git.js';
import { FINISHED, type JobRecord } from './job-record.js';

export interface MergeOutcome {
  readonly branch: string;
  readonly into: string;
  readonly repo: string;
  /** The commit made in the worktree for its uncommitted work, if there was any. */
  readonly committed: string | undefined;
  readonly head: string;
}

function refuse(message: string, hint?: string): LocalAgentsError {
  return new LocalAgentsError('worktree_failed', message, { hint });
}

export async function mergeJob(record: JobRecord, callerCwd: string): Promise<MergeOutcome> {
  const wt = record.worktree;
  if (wt === undefined) throw refuse(`job ${record.id} ran without a worktree: its changes are already in ${record.cwd}`);
  if (!FINISHED.has(record.status)) throw refuse(`job ${record.id} is ${record.status}; merge it once it has ended`, `localagents log ${record.id} -f follows it.`);
  if (!wt.kept) throw refuse(`job ${record.id} changed nothing: its worktree and branch were removed`);

  const top = await git(callerCwd, ['rev-parse', '--show-toplevel']);
  if (!top.ok) throw refuse(`${callerCwd} is not inside a git repository`, `Run localagents merge from the repository the job worked on (${record.cwd}).`);
  const repo = top.stdout.trim();
  const current = await git(repo, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  if (!current.ok) throw refuse(`${repo} has a detached HEAD; check out the branch to merge into first`);
  const into = current.stdout.trim();

  let committed: string | undefined;
  const status = await git(wt.path, ['status', '--porcelain']);
  if (!status.ok) throw refuse(`cannot read the worktree ${wt.path}: ${status.stderr.trim()}`);
  if (status.stdout.trim() !== '') {
    const added = await git(wt.path, ['add', '-A']);
    const commit = added.ok ? await git(wt.path, ['commit', '--quiet', '-m', `localagents job ${record.id}: ${record.task_preview.split('\n')[0]?.slice(0, 60) ?? ''}`]) : added;
    if (!commit.ok) throw refuse(`could not commit the work in ${wt.path}: ${commit.stderr.trim()}`);
    committed = (await git(wt.path, ['rev-parse', 'HEAD'])).stdout.trim();
  }

  const merged = await git(repo, ['merge', '--no-edit', wt.branch]);
  if (!merged.ok) {
    const conflicted = (await git(repo, ['diff', '--name-only', '--diff-filter=U'])).stdout.trim().split('\n').filter(Boolean);
    if (conflicted.length > 0) await git(repo, ['merge', '--abort']);
    throw refuse(
      conflicted.length > 0
        ? `merging ${wt.branch} into ${into} conflicts in ${conflicted.join(', ')}; nothing was changed`
        : `git merge ${wt.branch} failed: ${(merged.stderr || merged.stdout).trim().split('\n')[0] ?? ''}`,
      `To finish by hand: git -C ${repo} merge ${wt.branch}, fix the conflicted files, git -C ${repo} add them, git -C ${repo} commit.`,
    );
  }
  return { branch: wt.branch, into, repo, committed, head: (await git(repo, ['rev-parse', 'HEAD'])).stdout.trim() };
}
