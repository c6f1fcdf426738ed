/**
 * `localagents merge JOB`: the worktree's uncommitted work is committed on its
 * branch, and the branch merged into the user's branch in the main checkout of
 * the job's repository — run anywhere else (the job's worktree, another job's,
 * another repository, a detached checkout), with anything staged there, or with
 * uncommitted changes to files the job changed too, it refuses and changes
 * nothing. Uncommitted changes to other files stay as they are, uncommitted, as
 * `git merge` leaves them. A merge that conflicts is aborted (the tree stays as
 * it was) and the error gives the commands to finish it by hand; a branch
 * already merged is reported as such, never as a merge.
 */
import { realpath } from 'node:fs/promises';
import { LocalAgentsError } from '../../errors.js';
import { git } from './git.js';
import { FINISHED, type JobRecord } from '../record/job-record.js';

export interface MergeOutcome {
  readonly branch: string;
  readonly into: string;
  readonly repo: string;
  /** The commit made in the worktree for its uncommitted work, if there was any. */
  readonly committed: string | undefined;
  readonly head: string;
  /** False when the target already held the branch: nothing changed. */
  readonly merged: boolean;
}

function refuse(message: string, hint?: string): LocalAgentsError {
  return new LocalAgentsError('worktree_failed', message, { hint });
}

export async function mergeJob(record: JobRecord, callerCwd: string): Promise<MergeOutcome> {
  const wt = record.worktree;
  if (wt === undefined) throw refuse(`job ${record.id} ran without a worktree: its changes are already in ${record.cwd}`);
  if (!FINISHED.has(record.status)) throw refuse(`job ${record.id} is ${record.status}; merge it once it has ended`, `localagents log ${record.id} -f follows it.`);
  if (!wt.kept) throw refuse(`job ${record.id} changed nothing: its worktree and branch were removed`);

  const { repo, into } = await mergeTarget(record, callerCwd);
  await refuseOverlap(record, repo);
  const before = (await git(repo, ['rev-parse', 'HEAD'])).stdout.trim();

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
  const head = (await git(repo, ['rev-parse', 'HEAD'])).stdout.trim();
  return { branch: wt.branch, into, repo, committed, head, merged: head !== before };
}

const sameDir = async (a: string, b: string): Promise<boolean> => (await realpath(a).catch(() => a)) === (await realpath(b).catch(() => b));

/** The main checkout of the job's repository and its branch, when the caller stands there on a branch of theirs with nothing staged. */
async function mergeTarget(record: JobRecord, callerCwd: string): Promise<{ repo: string; into: string }> {
  const wt = record.worktree!;
  const top = await git(callerCwd, ['rev-parse', '--show-toplevel']);
  if (!top.ok) throw refuse(`${callerCwd} is not inside a git repository`, `Run localagents merge from the repository the job worked on (${record.cwd}).`);
  const here = top.stdout.trim();
  const list = await git(record.cwd, ['worktree', 'list', '--porcelain']);
  const main = /^worktree (.+)$/m.exec(list.stdout)?.[1];
  if (!list.ok || main === undefined) throw refuse(`cannot find the repository job ${record.id} worked on (${record.cwd}): ${list.stderr.trim()}`);
  const hint = `Run it there: cd ${main} && localagents merge ${record.id}`;
  if (!(await sameDir(here, main))) {
    if (await sameDir(here, wt.path)) throw refuse(`${here} is job ${record.id}'s own worktree; localagents merge merges into your branch in the main checkout ${main}`, hint);
    const linked = list.stdout.split('\n\n').find((entry) => entry.startsWith(`worktree ${here}\n`));
    if (linked !== undefined) {
      const branch = /^branch refs\/heads\/(.+)$/m.exec(linked)?.[1];
      throw refuse(`${here} is a linked worktree${branch ? ` (branch ${branch})` : ''}; localagents merge merges into your branch in the main checkout ${main}`, `${hint}; or merge by hand here: git merge ${wt.branch}`);
    }
    throw refuse(`${here} is not the repository job ${record.id} worked on; that is ${main}`, hint);
  }
  const current = await git(here, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  if (!current.ok) throw refuse(`${here} has a detached HEAD; check out the branch to merge into first`);
  const into = current.stdout.trim();
  if (into.startsWith('local-agent/')) throw refuse(`${here} has a job's branch checked out (${into}); check out your own branch to merge into first`);
  // A merge commit would take staged changes in (git itself refuses a merge then).
  const staged = await git(here, ['diff', '--cached', '--name-only', '-z', '--no-renames']);
  if (!staged.ok) throw refuse(`cannot read the index of ${here}: ${staged.stderr.trim()}`);
  const stagedFiles = nulList(staged.stdout);
  if (stagedFiles.length > 0) {
    throw refuse(`${here} has staged changes (${listed(stagedFiles)}), which a merge commit would take in; commit them, or unstage them with git restore --staged, first`);
  }
  return { repo: here, into };
}

const listed = (files: readonly string[]): string => `${files.slice(0, 5).join(', ')}${files.length > 5 ? ', …' : ''}`;
const nulList = (text: string): string[] => text.split('\0').filter(Boolean);

/**
 * Refuses when the user has uncommitted changes (or untracked files) at a path the job changed: the merge would
 * write there, and an aborted merge cannot always give such changes back. Anything else stays as it is.
 */
async function refuseOverlap(record: JobRecord, repo: string): Promise<void> {
  const wt = record.worktree!;
  const base = await git(repo, ['merge-base', 'HEAD', wt.branch]);
  const committed = await git(repo, ['diff', '--name-only', '-z', '--no-renames', base.ok ? base.stdout.trim() : wt.base_commit, wt.branch]);
  const pending = await git(wt.path, ['status', '--porcelain', '-z', '--untracked-files=all', '--no-renames']);
  if (!committed.ok || !pending.ok) throw refuse(`cannot list what job ${record.id} changed: ${(committed.stderr || pending.stderr).trim()}`);
  const jobFiles = [...new Set([...nulList(committed.stdout), ...nulList(pending.stdout).map((entry) => entry.slice(3))])];
  if (jobFiles.length === 0) return;
  const mine = await git(repo, ['--literal-pathspecs', 'status', '--porcelain', '-z', '--untracked-files=all', '--no-renames', '--', ...jobFiles]);
  if (!mine.ok) throw refuse(`cannot read the state of ${repo}: ${mine.stderr.trim()}`);
  const touched = nulList(mine.stdout).map((entry) => entry.slice(3)).sort();
  if (touched.length > 0) {
    throw refuse(
      `${repo} has uncommitted changes to files job ${record.id} changed too (${listed(touched)}); commit or stash them first`,
      'Uncommitted changes to files the job did not touch may stay: the merge leaves them as they are.',
    );
  }
}
