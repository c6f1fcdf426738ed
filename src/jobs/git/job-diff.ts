/**
 * `localagents diff JOB`: what a worktree job changed — `git diff` of its kept
 * worktree against the commit it started from, new files included (the job
 * marked them intent-to-add when it ended), or why there is nothing to diff.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { git } from './git.js';
import { FINISHED, type JobRecord } from '../record/job-record.js';

export interface DiffTarget {
  readonly dir: string;
  readonly base: string;
  /** Said before the diff (a job still running shows its tracked changes so far). */
  readonly note?: string;
}

export interface NoDiff {
  readonly error: string;
  readonly hint: string;
}

/** Where to diff and against what, or the reason there is nothing to diff. */
export function diffTarget(record: JobRecord): DiffTarget | NoDiff {
  const wt = record.worktree;
  if (record.isolation !== 'worktree') {
    return { error: `job ${record.id} ran in place (isolation none) in ${record.cwd}: there is no worktree to diff`, hint: `git -C ${record.cwd} diff shows the uncommitted changes there (the job's and anyone else's).` };
  }
  if (wt === undefined) {
    if (!FINISHED.has(record.status) && record.work_dir) {
      return { dir: record.work_dir, base: 'HEAD', note: `job ${record.id} is still ${record.status}: changes to tracked files so far (new files show once it ends)` };
    }
    return { error: `job ${record.id} has no worktree (${record.status}${record.error ? `: ${record.error}` : ''})`, hint: `localagents show ${record.id} says what happened.` };
  }
  if (!existsSync(wt.path)) {
    return { error: `the worktree of job ${record.id} is gone: ${wt.path}`, hint: `Its branch ${wt.branch} may still exist: git diff ${wt.base_commit.slice(0, 12)} ${wt.branch}` };
  }
  return { dir: wt.path, base: wt.base_commit };
}

const diffArgs = (target: DiffTarget, stat: boolean): string[] => ['diff', ...(stat ? ['--stat'] : []), target.base];

/** The diff as text (for --json). */
export async function diffText(target: DiffTarget, stat: boolean): Promise<string> {
  const out = await git(target.dir, diffArgs(target, stat));
  if (!out.ok) throw new Error(`git diff failed in ${target.dir}: ${out.stderr.trim()}`);
  return out.stdout;
}

/** The diff straight to this process's terminal, through git itself so the pager and colours work as the user has them set; git's exit code. */
export function diffToTerminal(target: DiffTarget, stat: boolean): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn('git', ['-C', target.dir, ...diffArgs(target, stat)], { stdio: 'inherit' });
    child.on('error', () => resolve(127));
    child.on('close', (code) => resolve(code ?? 1));
  });
}
