/**
 * `localagents merge` merges a job's branch into the user's branch in the main
 * checkout, and nothing else (issue 24, finding 4): run from the job's own
 * worktree, from another job's worktree, or with uncommitted changes to files
 * the job changed (or anything staged) it refuses with words and changes
 * nothing; an unrelated uncommitted edit merges as git would and stays
 * uncommitted (issue 36); a branch already merged is reported as nothing to
 * merge, never as a merge. Real repositories, the real CLI.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createJobStore, type JobStore } from '../../src/jobs/record/job-store.js';
import type { PreparedWorktree } from '../../src/jobs/git/worktree.js';
import { makeDirs, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { finishedWorktreeJob, type FinishedWorktreeJob } from '../helpers/worktree-job.js';
import { runCli, type CliResult } from './cli-process.js';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

describe('merge runs only against the user branch in the main checkout', { timeout: 180_000 }, () => {
  let dirs: E2EDirs;
  let store: JobStore;
  const job = (work: (wt: PreparedWorktree) => void): Promise<FinishedWorktreeJob> => finishedWorktreeJob(store, dirs.repo, work);
  const merge = (cwd: string, id: string): Promise<CliResult> =>
    runCli(['merge', id], { cwd, env: serverEnv(dirs, { LOCALAGENTS_CONFIG: dirs.config, GIT_AUTHOR_NAME: 'Dev', GIT_AUTHOR_EMAIL: 'dev@example.com', GIT_COMMITTER_NAME: 'Dev', GIT_COMMITTER_EMAIL: 'dev@example.com' }) });

  beforeEach(() => {
    dirs = makeDirs();
    writeConfig(dirs, 'endpoints: {}\n');
    store = createJobStore(dirs.state);
  });

  it("finding 4: run inside the job's own worktree it refuses, names the main checkout, and changes no branch", async () => {
    const { record, wt } = await job((w) => writeFileSync(join(w.path, 'notes.md'), 'from the agent\n'));
    const mainHead = git(dirs.repo, 'rev-parse', 'main');
    const status = git(wt.path, 'status', '--porcelain');
    const result = await merge(wt.path, record.id);
    expect(result.code).not.toBe(0);
    expect(result.stdout).not.toContain('merged');
    expect(result.stderr).toContain(`error: ${wt.path} is job ${record.id}'s own worktree; localagents merge merges into your branch in the main checkout ${dirs.repo}`);
    expect(git(dirs.repo, 'rev-parse', 'main')).toBe(mainHead);
    expect(git(wt.path, 'status', '--porcelain')).toBe(status); // not even committed
    expect(git(wt.path, 'rev-parse', 'HEAD')).toBe(record.worktree?.base_commit);
  });

  it("same class: run inside another job's worktree it refuses instead of merging into that job's branch", async () => {
    const a = await job((w) => writeFileSync(join(w.path, 'a.md'), 'A\n'));
    const b = await job((w) => writeFileSync(join(w.path, 'b.md'), 'B\n'));
    const bHead = git(b.wt.path, 'rev-parse', 'HEAD');
    const result = await merge(b.wt.path, a.record.id);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`error: ${b.wt.path} is a linked worktree (branch ${b.wt.branch}); localagents merge merges into your branch in the main checkout ${dirs.repo}`);
    expect(git(b.wt.path, 'rev-parse', 'HEAD')).toBe(bHead);
  });

  it('issue 36: an uncommitted edit the job did not touch is no reason to refuse: it merges as git does, and the edit stays uncommitted', async () => {
    const { record, wt } = await job((w) => writeFileSync(join(w.path, 'pkg', 'a.txt'), 'agent\n'));
    git(dirs.repo, 'commit', '--allow-empty', '-q', '-m', 'mine meanwhile'); // a merge commit, not a fast-forward
    writeFileSync(join(dirs.repo, 'README.md'), '# my unsaved edit\n');
    writeFileSync(join(dirs.repo, 'scratch.txt'), 'my untracked notes\n');
    const result = await merge(dirs.repo, record.id);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`merged ${wt.branch} into main`);
    expect(readFileSync(join(dirs.repo, 'pkg', 'a.txt'), 'utf8')).toBe('agent\n');
    expect(readFileSync(join(dirs.repo, 'README.md'), 'utf8')).toBe('# my unsaved edit\n');
    expect(git(dirs.repo, 'status', '--porcelain')).toBe('M README.md\n?? scratch.txt'); // nothing of the user's committed (git() trims the leading space)
    expect(git(dirs.repo, 'diff', '--name-only', 'HEAD^1', 'HEAD')).toBe('pkg/a.txt');
  });

  it('same class: an uncommitted edit to a file the job changed is refused in words before anything is merged, and stays', async () => {
    const { record, wt } = await job((w) => {
      writeFileSync(join(w.path, 'README.md'), '# the agent\'s README\n');
      writeFileSync(join(w.path, 'new.md'), 'from the agent\n');
    });
    writeFileSync(join(dirs.repo, 'README.md'), '# my unsaved edit\n');
    writeFileSync(join(dirs.repo, 'new.md'), 'my own untracked file of that name\n');
    const head = git(dirs.repo, 'rev-parse', 'HEAD');
    const result = await merge(dirs.repo, record.id);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`error: ${dirs.repo} has uncommitted changes to files job ${record.id} changed too (README.md, new.md); commit or stash them first`);
    expect(git(dirs.repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(readFileSync(join(dirs.repo, 'README.md'), 'utf8')).toBe('# my unsaved edit\n');
    expect(readFileSync(join(dirs.repo, 'new.md'), 'utf8')).toBe('my own untracked file of that name\n');
    expect(git(wt.path, 'rev-parse', 'HEAD')).toBe(record.worktree?.base_commit); // the job's work not even committed
  });

  it('same class: staged changes are refused (a merge commit would take them in), and stay staged', async () => {
    const { record } = await job((w) => writeFileSync(join(w.path, 'pkg', 'a.txt'), 'agent\n'));
    writeFileSync(join(dirs.repo, 'README.md'), '# staged by me\n');
    git(dirs.repo, 'add', 'README.md');
    const head = git(dirs.repo, 'rev-parse', 'HEAD');
    const result = await merge(dirs.repo, record.id);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`error: ${dirs.repo} has staged changes (README.md), which a merge commit would take in; commit them, or unstage them with git restore --staged, first`);
    expect(git(dirs.repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(dirs.repo, 'status', '--porcelain')).toBe('M  README.md');
  });

  it('same class: a merge that conflicts is undone, and an unrelated uncommitted edit survives the undo', async () => {
    const { record } = await job((w) => writeFileSync(join(w.path, 'pkg', 'a.txt'), 'agent\n'));
    writeFileSync(join(dirs.repo, 'pkg', 'a.txt'), 'mine, committed\n');
    git(dirs.repo, 'commit', '-q', '-am', 'mine');
    writeFileSync(join(dirs.repo, 'README.md'), '# my unsaved edit\n');
    const head = git(dirs.repo, 'rev-parse', 'HEAD');
    const result = await merge(dirs.repo, record.id);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`conflicts in pkg/a.txt; nothing was changed`);
    expect(git(dirs.repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(dirs.repo, 'status', '--porcelain')).toBe('M README.md');
    expect(readFileSync(join(dirs.repo, 'README.md'), 'utf8')).toBe('# my unsaved edit\n');
  });

  it('same class: a branch already in the target is reported as nothing to merge, not as a merge', async () => {
    const { record, wt } = await job((w) => writeFileSync(join(w.path, 'notes.md'), 'from the agent\n'));
    const first = await merge(dirs.repo, record.id);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`merged ${wt.branch} into main`);
    const head = git(dirs.repo, 'rev-parse', 'HEAD');
    const again = await merge(dirs.repo, record.id);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`${wt.branch} is already in main; nothing to merge (main stays at ${head.slice(0, 12)})`);
    expect(again.stdout).not.toContain('merged');
  });
});
