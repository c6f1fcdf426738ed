/**
 * `localagents merge` and `localagents prune` on real git worktrees, shaped as
 * a worktree job leaves them: merge commits the worktree's uncommitted work and
 * merges the branch into the current one, and on a conflict changes nothing and
 * says how to finish by hand; prune removes old finished jobs with merged or no
 * work, and never a branch with unmerged commits or a worktree with changes.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createJobStore, type JobStore } from '../../src/jobs/record/job-store.js';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { makeRecord, seedJob } from '../dashboard/fixtures.js';
import { makeDirs, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { runCli, type CliOptions } from './cli-process.js';

const DAY = 86_400_000;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

describe('merge and prune', { timeout: 180_000 }, () => {
  let dirs: E2EDirs;
  let store: JobStore;
  let opts: CliOptions;
  const cli = (...args: string[]): ReturnType<typeof runCli> => runCli(args, opts);
  // Jobs the first two tests leave for the prune test (by id: two records made in one second list in either order).
  let merged: JobRecord | undefined;
  let conflicted: JobRecord | undefined;

  /** A finished worktree job: its branch and worktree made with git, as prepareWorktree does, then `work` done in it. */
  async function worktreeJob(work: (path: string) => void, finishedDaysAgo = 10): Promise<JobRecord> {
    const created = new Date(Date.now() - finishedDaysAgo * DAY - 60_000);
    const draft = makeRecord({ created, cwd: dirs.repo, work_dir: dirs.repo, isolation: 'worktree' });
    const base = git(dirs.repo, 'rev-parse', 'HEAD');
    const path = join(dirs.state, 'worktrees', draft.id);
    mkdirSync(join(dirs.state, 'worktrees'), { recursive: true });
    git(dirs.repo, 'worktree', 'add', '--quiet', '-b', `local-agent/${draft.id}`, path, base);
    work(path);
    const record = { ...draft, finished_at: new Date(Date.now() - finishedDaysAgo * DAY).toISOString(), worktree: { path, branch: `local-agent/${draft.id}`, base_commit: base, kept: true, diffstat: '', commits: 0, commands: {}, warnings: [] } };
    return seedJob(store, record);
  }

  beforeAll(() => {
    dirs = makeDirs();
    writeConfig(dirs, 'endpoints: {}\n');
    store = createJobStore(dirs.state);
    opts = { cwd: dirs.repo, env: serverEnv(dirs, { LOCALAGENTS_CONFIG: dirs.config, GIT_AUTHOR_NAME: 'Dev', GIT_AUTHOR_EMAIL: 'dev@example.com', GIT_COMMITTER_NAME: 'Dev', GIT_COMMITTER_EMAIL: 'dev@example.com' }) };
  });

  it('merge commits uncommitted worktree work and merges it into the current branch (job given by prefix)', async () => {
    const job = await worktreeJob((path) => writeFileSync(join(path, 'notes.md'), 'from the agent\n'));
    merged = job;
    const result = await cli('merge', job.id.slice(16, 22));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`merged local-agent/${job.id} into main`);
    expect(readFileSync(join(dirs.repo, 'notes.md'), 'utf8')).toBe('from the agent\n');
    expect(git(dirs.repo, 'status', '--porcelain')).toBe('');
  });

  it('merge refuses on a conflict, changes nothing, and gives the commands to finish by hand', async () => {
    const job = await worktreeJob((path) => writeFileSync(join(path, 'README.md'), '# agent version\n'));
    conflicted = job;
    writeFileSync(join(dirs.repo, 'README.md'), '# my version\n');
    git(dirs.repo, 'commit', '-qam', 'mine');
    const head = git(dirs.repo, 'rev-parse', 'HEAD');
    const result = await cli('merge', job.id);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`error: merging local-agent/${job.id} into main conflicts in README.md; nothing was changed`);
    expect(result.stderr).toContain(`To finish by hand: git -C ${dirs.repo} merge local-agent/${job.id}`);
    expect(git(dirs.repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(dirs.repo, 'status', '--porcelain')).toBe('');
    expect(readFileSync(join(dirs.repo, 'README.md'), 'utf8')).toBe('# my version\n');
  });

  it('prune removes merged and worktree-less jobs, and keeps unmerged commits and uncommitted changes', async () => {
    const dirty = await worktreeJob((path) => writeFileSync(join(path, 'draft.txt'), 'half done\n'));
    const plain = await seedJob(store, makeRecord({ created: new Date(Date.now() - 20 * DAY) }));
    const recent = await worktreeJob(() => undefined, 0);

    const dry = await cli('prune', '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`would remove job ${merged!.id}: record, worktree`);
    expect(existsSync(merged!.worktree!.path)).toBe(true);

    const pruned = await cli('prune', '--older-than', '7d');
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout).toContain(`removed job ${merged!.id}: record, worktree ${merged!.worktree!.path}, branch local-agent/${merged!.id}`);
    expect(pruned.stdout).toContain(`removed job ${plain.id}: record`);
    expect(pruned.stdout).toContain(`job ${conflicted!.id} kept: branch local-agent/${conflicted!.id} has 1 unmerged commit(s)`);
    expect(pruned.stdout).toContain(`job ${dirty.id} kept: its worktree ${dirty.worktree!.path} has uncommitted changes`);
    expect(pruned.stdout).not.toContain(recent.id);

    expect(existsSync(merged!.worktree!.path)).toBe(false);
    expect(git(dirs.repo, 'branch', '--list', `local-agent/${merged!.id}`)).toBe('');
    expect(git(dirs.repo, 'branch', '--list', `local-agent/${conflicted!.id}`)).not.toBe('');
    expect(readFileSync(join(dirty.worktree!.path, 'draft.txt'), 'utf8')).toBe('half done\n');
    expect((await store.ids()).toArray().sort()).toEqual([conflicted!.id, dirty.id, recent.id].sort());
  });
});
