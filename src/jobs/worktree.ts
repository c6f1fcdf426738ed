/**
 * `isolation: worktree`: a fresh git worktree on branch local-agent/<job> from
 * the caller's HEAD, kept only if the job changed something. Never deletes a
 * worktree or branch that holds changes.
 */
import { mkdir, realpath } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { BadArgumentError, LocalAgentsError } from '../errors.js';
import { git } from './git.js';
import type { WorktreeInfo } from './job-record.js';

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

/**
 * Checks the caller's tree can give a worktree: inside a git repository with a
 * commit. Read-only; run_agent calls it before a job exists, so a refusal is an
 * error result and nothing is created or touched.
 */
export async function worktreeSource(cwd: string): Promise<WorktreeSource> {
  const top = await git(cwd, ['rev-parse', '--show-toplevel']);
  if (!top.ok) {
    throw new BadArgumentError('isolation', `isolation "worktree" needs a git repository, and ${cwd} is not inside one`, {
      hint: 'Use isolation "none", or run git init and make a first commit there.',
      details: { allowed: ['none', 'worktree'] },
    });
  }
  const repoRoot = top.stdout.trim();
  const head = await git(cwd, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (!head.ok) {
    throw new BadArgumentError('isolation', `isolation "worktree" needs a commit to start from, and ${repoRoot} has none yet`, {
      hint: 'Make a first commit, or use isolation "none".',
      details: { allowed: ['none', 'worktree'] },
    });
  }
  return { repoRoot, baseCommit: head.stdout.trim() };
}

/** Checks the caller's tree again (it may have changed while the job queued), then adds the worktree. */
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
  const path = join(worktreesDir, jobId);
  const added = await git(repoRoot, ['worktree', 'add', '--quiet', '-b', branch, path, baseCommit]);
  if (!added.ok) {
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

/** After the job: keep and describe the worktree if anything changed, else remove it and its branch. */
export async function finishWorktree(wt: PreparedWorktree): Promise<WorktreeInfo> {
  const status = await git(wt.path, ['status', '--porcelain']);
  const count = await git(wt.path, ['rev-list', '--count', `${wt.baseCommit}..HEAD`]);
  const commits = count.ok ? Number(count.stdout.trim()) : 0;
  // If git cannot tell us, assume there are changes: keeping a clean worktree costs nothing, losing work is unforgivable.
  const changed = !status.ok || !count.ok || status.stdout.trim() !== '' || commits > 0;
  const commands = reviewCommands(wt);
  const warnings = [...wt.warnings];
  if (changed) {
    // Intent-to-add makes new files show in `git diff BASE` without staging their content.
    await git(wt.path, ['add', '--intent-to-add', '--all']);
    const stat = await git(wt.path, ['diff', '--stat', wt.baseCommit]);
    return { path: wt.path, branch: wt.branch, base_commit: wt.baseCommit, kept: true, diffstat: stat.stdout.trimEnd(), commits, commands, warnings };
  }
  const removed = await git(wt.repoRoot, ['worktree', 'remove', wt.path]);
  if (!removed.ok) warnings.push(`could not remove the unchanged worktree ${wt.path}: ${removed.stderr.trim()}`);
  else {
    const deleted = await git(wt.repoRoot, ['branch', '-D', wt.branch]);
    if (!deleted.ok) warnings.push(`could not delete branch ${wt.branch}: ${deleted.stderr.trim()}`);
  }
  return { path: wt.path, branch: wt.branch, base_commit: wt.baseCommit, kept: false, diffstat: '', commits: 0, commands: {}, warnings };
}
