/**
 * `isolation: worktree`: a fresh git worktree on branch local-agent/<job> from
 * the caller's HEAD, kept only if the job changed something. Never deletes a
 * worktree or branch that holds changes, commits beyond the base, or files the
 * job made that git ignores (unless they are build caches).
 */
import { existsSync } from 'node:fs';
import { mkdir, realpath, rmdir } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';
import { DEFAULT_WORKTREE_CACHES } from '../../config/schema.js';
import { BadArgumentError, LocalAgentsError } from '../../errors.js';
import { git } from './git.js';
import type { WorktreeInfo } from '../record/job-record.js';
import { heldWork, reasonsToKeep, removeJobWork } from './work-retention.js';

export interface PreparedWorktree {
  readonly repoRoot: string;
  readonly path: string;
  readonly branch: string;
  readonly baseCommit: string;
  /** The caller's cwd, at the same relative position inside the worktree. */
  readonly workDir: string;
  readonly warnings: string[];
}

/** What a worktree would start from. */
export interface WorktreeSource {
  readonly repoRoot: string;
  readonly baseCommit: string;
}

/** Refuses a worktree for `cwd`: a bad_argument naming what is wrong and what to do, before any job exists. */
function refuse(argument: 'isolation' | 'cwd', message: string, hint: string): never {
  throw new BadArgumentError(argument, message, { hint, details: { allowed: ['none', 'worktree'] } });
}

/** Operations that leave the tree half-way; a worktree from HEAD now would start from a state nobody chose. */
const IN_PROGRESS: ReadonlyArray<{ readonly gitPath: string; readonly what: string; readonly finish: string }> = [
  { gitPath: 'rebase-merge', what: 'a rebase', finish: 'git rebase --continue or git rebase --abort' },
  { gitPath: 'rebase-apply', what: 'a rebase (or git am)', finish: 'git rebase --continue / git am --continue, or --abort' },
  { gitPath: 'MERGE_HEAD', what: 'a merge', finish: 'git commit or git merge --abort' },
  { gitPath: 'CHERRY_PICK_HEAD', what: 'a cherry-pick', finish: 'git cherry-pick --continue or --abort' },
  { gitPath: 'REVERT_HEAD', what: 'a revert', finish: 'git revert --continue or --abort' },
  { gitPath: 'BISECT_LOG', what: 'a bisect', finish: 'git bisect reset' },
];

/**
 * Checks the caller's tree can give a worktree: a non-bare git repository with a commit, cwd in
 * its working tree (not inside .git) and present in that commit, no merge or rebase half-done.
 * Read-only; run_agent calls it before a job exists, so a refusal is an error result and nothing
 * is created or touched.
 */
export async function worktreeSource(cwd: string): Promise<WorktreeSource> {
  const where = await git(cwd, ['rev-parse', '--is-bare-repository', '--is-inside-git-dir']);
  if (!where.ok) {
    refuse('isolation', `isolation "worktree" needs a git repository, and ${cwd} is not inside one`, 'Use isolation "none", or run git init and make a first commit there.');
  }
  const [bare, insideGitDir] = where.stdout.split('\n').map((l) => l.trim() === 'true');
  if (bare) {
    refuse('isolation', `isolation "worktree" needs a working tree, and ${cwd} is a bare repository`, 'Run from a clone with a working tree (git clone this repository), or use isolation "none".');
  }
  if (insideGitDir) {
    refuse('cwd', `cwd ${cwd} is inside a .git folder, where git keeps its own data`, 'Pass the repository folder (the one that holds .git) as cwd.');
  }
  const top = await git(cwd, ['rev-parse', '--show-toplevel']);
  if (!top.ok) {
    refuse('isolation', `isolation "worktree" needs a git working tree, and git says of ${cwd}: ${top.stderr.trim()}`, 'Run from inside the repository\'s working tree, or use isolation "none".');
  }
  const repoRoot = top.stdout.trim();
  const head = await git(cwd, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (!head.ok) {
    refuse('isolation', `isolation "worktree" needs a commit to start from, and ${repoRoot} has none yet`, 'Make a first commit, or use isolation "none".');
  }
  const baseCommit = head.stdout.trim();
  for (const op of IN_PROGRESS) {
    const path = await git(cwd, ['rev-parse', '--git-path', op.gitPath]);
    if (path.ok && existsSync(resolve(cwd, path.stdout.trim()))) {
      refuse('isolation', `${repoRoot} is in the middle of ${op.what}; a worktree would start from the half-done HEAD ${baseCommit.slice(0, 12)}`, `Finish it (${op.finish}), or use isolation "none".`);
    }
  }
  const rel = relative(await realpath(repoRoot), await realpath(cwd));
  if (rel !== '') {
    const kind = await git(repoRoot, ['cat-file', '-t', `${baseCommit}:${rel.split(sep).join('/')}`]);
    if (!kind.ok || kind.stdout.trim() !== 'tree') {
      refuse(
        'cwd',
        `cwd ${cwd} is not in the commit the worktree starts from (HEAD ${baseCommit.slice(0, 12)} has no folder ${rel}): the folder is untracked or ignored, so the worktree would not have it`,
        'Commit the folder first, pass a cwd that is in HEAD, or use isolation "none".',
      );
    }
  }
  return { repoRoot, baseCommit };
}

/** Checks the caller's tree again (it may have changed while the job queued), then adds the worktree. */
/**
 * The lowest free `<repository>-<n>` folder under `worktreesDir`, claimed by creating it (atomic across processes).
 * Claude Code puts the working directory near the start of every conversation, so a job that gets the path of the
 * repository's previous, removed worktree reuses the server's prompt cache from there on (BENCHMARKS.md part 8).
 */
async function claimWorktreePath(worktreesDir: string, repoRoot: string): Promise<string> {
  for (let n = 1; ; n++) {
    const path = join(worktreesDir, `${basename(repoRoot)}-${n}`);
    try {
      await mkdir(path, { mode: 0o700 });
      return path;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}

export async function prepareWorktree(cwd: string, worktreesDir: string, jobId: string): Promise<PreparedWorktree> {
  const { repoRoot, baseCommit } = await worktreeSource(cwd);
  const warnings: string[] = [];
  const status = await git(cwd, ['status', '--porcelain']);
  if (status.ok && status.stdout.trim() !== '') {
    warnings.push(`the caller's tree has uncommitted changes; they are not in the worktree, which starts from HEAD ${baseCommit.slice(0, 12)}`);
  }
  const branchName = await git(cwd, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  if (!branchName.ok) warnings.push(`the caller's HEAD is detached; the worktree starts from ${baseCommit.slice(0, 12)}`);

  const branch = `local-agent/${jobId}`;
  await mkdir(worktreesDir, { recursive: true, mode: 0o700 });
  const path = await claimWorktreePath(worktreesDir, repoRoot);
  const added = await git(repoRoot, ['worktree', 'add', '--quiet', '-b', branch, path, baseCommit]);
  if (!added.ok) {
    await rmdir(path).catch(() => undefined); // only our empty claim; rmdir never removes content
    throw new LocalAgentsError('worktree_failed', `git worktree add failed for ${path}: ${added.stderr.trim()}`);
  }
  const rel = relative(await realpath(repoRoot), await realpath(cwd));
  return { repoRoot, path, branch, baseCommit, workDir: rel === '' ? path : join(path, rel), warnings };
}

function reviewCommands(wt: PreparedWorktree): Record<string, string> {
  return {
    review: `git -C ${wt.path} diff ${wt.baseCommit.slice(0, 12)}`,
    merge: `git -C ${wt.path} add -A && git -C ${wt.path} commit -m "local agent work" && git -C ${wt.repoRoot} merge ${wt.branch}`,
    remove: `git -C ${wt.repoRoot} worktree remove --force ${wt.path} && git -C ${wt.repoRoot} branch -D ${wt.branch}`,
  };
}

/**
 * The record's worktree block while the job runs: if the server dies before
 * finishWorktree, the interrupted record still says where the work is.
 */
export function runningWorktreeInfo(wt: PreparedWorktree): WorktreeInfo {
  return { path: wt.path, branch: wt.branch, base_commit: wt.baseCommit, kept: true, diffstat: '', commits: 0, commands: reviewCommands(wt), warnings: [...wt.warnings] };
}

const MAX_LISTED = 200;
const capped = (paths: string[]): string[] => (paths.length <= MAX_LISTED ? paths : [...paths.slice(0, MAX_LISTED), `… and ${paths.length - MAX_LISTED} more`]);

/**
 * After the job: keep and describe the worktree if it holds anything (work-retention.ts decides, as
 * it does for prune), else remove it and its branch.
 */
export async function finishWorktree(wt: PreparedWorktree, caches: readonly string[] = DEFAULT_WORKTREE_CACHES): Promise<WorktreeInfo> {
  const job = { repo: wt.repoRoot, path: wt.path, branch: wt.branch, baseCommit: wt.baseCommit };
  const held = await heldWork(job, caches);
  const warnings = [...wt.warnings];
  const files = { untracked_files: capped([...held.untracked]), ignored_files: capped([...held.ignored]) };
  if (held.reflogOnly.length > 0) {
    const shas = held.reflogOnly.slice(0, 10).map((c) => c.slice(0, 12)).join(', ');
    warnings.push(`the job made commits that are on no branch (${shas}); the worktree is kept so they stay in its HEAD reflog — git -C ${wt.path} branch rescued ${held.reflogOnly[0]?.slice(0, 12) ?? ''} keeps them for good`);
  }
  if (held.stashes.length > 0) warnings.push(`the job stashed work, kept with the worktree and branch (git stash list shows it): ${held.stashes.join('; ')}`);
  if (held.uncachedIgnored.length > 0) {
    warnings.push(`the job left files git ignores, kept with the worktree: ${capped([...held.uncachedIgnored]).join(', ')} (build caches listed in defaults.worktree_caches do not keep a worktree)`);
  }
  if (reasonsToKeep(job, held).length > 0 || held.beyondBase > 0) {
    // Intent-to-add makes new files show in `git diff BASE` without staging their content.
    await git(wt.path, ['add', '--intent-to-add', '--all']);
    const stat = await git(wt.path, ['diff', '--stat', wt.baseCommit]);
    return { path: wt.path, branch: wt.branch, base_commit: wt.baseCommit, kept: true, diffstat: stat.stdout.trimEnd(), commits: held.beyondBase, commands: reviewCommands(wt), warnings, ...files };
  }
  const removal = await removeJobWork(job, held);
  warnings.push(...removal.failures, ...(removal.leftAlone === undefined ? [] : [removal.leftAlone]));
  const kept = !removal.worktreeRemoved;
  return { path: wt.path, branch: wt.branch, base_commit: wt.baseCommit, kept, diffstat: '', commits: 0, commands: kept ? reviewCommands(wt) : {}, warnings, ...files };
}
