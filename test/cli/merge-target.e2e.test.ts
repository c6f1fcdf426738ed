/**
 * `localagents merge` merges a job's branch into the user's branch in the main
 * checkout, and nothing else (issue 24, finding 4): run from the job's own
 * worktree, from another job's worktree or from a dirty main checkout it
 * refuses with words and changes nothing; a branch already merged is reported
 * as nothing to merge, never as a merge. Real repositories, the real CLI.
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

  it('same class: a dirty main checkout is refused before anything is merged, and the changes stay', async () => {
    const { record } = await job((w) => writeFileSync(join(w.path, 'pkg', 'a.txt'), 'agent\n'));
    writeFileSync(join(dirs.repo, 'README.md'), '# my unsaved edit\n');
    const head = git(dirs.repo, 'rev-parse', 'HEAD');
    const result = await merge(dirs.repo, record.id);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`error: ${dirs.repo} has uncommitted changes (README.md); commit or stash them first`);
    expect(git(dirs.repo, 'rev-parse', 'HEAD')).toBe(head);
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
