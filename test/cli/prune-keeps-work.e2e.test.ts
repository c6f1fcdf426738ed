/**
 * `localagents prune` never loses what a job made (issue 24, findings 1–3):
 * each job here is a real worktree made and finished by the job's own finish
 * step (prepareWorktree / finishWorktree on a real repository), then pruned
 * through the real CLI. Prune keeps what the finish step kept — ignored
 * output, a stash, commits only a reflog holds — and never touches a path
 * another job has reused or one that is not the record's worktree.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createJobStore, type JobStore } from '../../src/jobs/record/job-store.js';
import { prepareWorktree, type PreparedWorktree } from '../../src/jobs/git/worktree.js';
import { makeRecord } from '../dashboard/fixtures.js';
import { makeDirs, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { makeRepo } from '../helpers/git-repo.js';
import { finishedWorktreeJob, type FinishedWorktreeJob } from '../helpers/worktree-job.js';
import { runCli, type CliOptions } from './cli-process.js';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

/** Whether `commit` is reachable from any ref or reflog of `repo` (what `git gc` keeps). */
function reachable(repo: string, commit: string): boolean {
  const refs = git(repo, 'rev-list', '--all', '--reflog');
  return refs.split('\n').includes(commit);
}

describe('prune keeps every piece of work a job left', { timeout: 180_000 }, () => {
  let dirs: E2EDirs;
  let store: JobStore;
  let opts: CliOptions;
  const prune = (): ReturnType<typeof runCli> => runCli(['prune', '--older-than', '0s'], opts);

  const job = (work: (wt: PreparedWorktree) => void): Promise<FinishedWorktreeJob> => finishedWorktreeJob(store, dirs.repo, work);

  beforeEach(() => {
    dirs = makeDirs();
    writeConfig(dirs, 'endpoints: {}\n');
    store = createJobStore(dirs.state);
    writeFileSync(join(dirs.repo, '.gitignore'), 'out/\nnode_modules/\n');
    git(dirs.repo, 'add', '.gitignore');
    git(dirs.repo, 'commit', '-qm', 'ignore build output');
    opts = { cwd: dirs.repo, env: serverEnv(dirs, { LOCALAGENTS_CONFIG: dirs.config, GIT_AUTHOR_NAME: 'Agent', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'Agent', GIT_COMMITTER_EMAIL: 'a@example.com' }) };
  });

  it('finding 1: keeps a worktree whose ignored output the finish step kept; removes one that holds only a build cache', async () => {
    const { record, wt } = await job((w) => {
      mkdirSync(join(w.path, 'out'));
      writeFileSync(join(w.path, 'out', 'report.json'), '{"found": 3}\n');
    });
    expect(record.worktree?.kept).toBe(true);
    expect(record.worktree?.warnings.join('\n')).toContain('the job left files git ignores, kept with the worktree: out/');
    const cacheOnly = await job((w) => {
      mkdirSync(join(w.path, 'node_modules', 'left-pad'), { recursive: true });
      writeFileSync(join(w.path, 'node_modules', 'left-pad', 'index.js'), '');
      writeFileSync(join(w.path, 'README.md'), '# demo, by the agent\n'); // a change, so the finish step keeps it
    });
    git(cacheOnly.wt.path, 'checkout', 'README.md'); // the user reverted it: only node_modules/ is left

    const pruned = await prune();
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout).toContain(`job ${record.id} kept: its worktree holds files git ignores that are not build caches: out/`);
    expect(readFileSync(join(wt.path, 'out', 'report.json'), 'utf8')).toBe('{"found": 3}\n');
    expect((await store.ids()).toArray()).toContain(record.id);
    expect(pruned.stdout).toContain(`removed job ${cacheOnly.record.id}: record, worktree ${cacheOnly.wt.path}, branch ${cacheOnly.wt.branch}`);
    expect(existsSync(cacheOnly.wt.path)).toBe(false);
  });

  it('finding 1, same class: keeps a job whose worktree work was stashed', async () => {
    const { record, wt } = await job((w) => {
      writeFileSync(join(w.path, 'README.md'), '# demo, half rewritten\n');
      git(w.path, 'stash', 'push', '-m', 'half-done rewrite');
    });
    const pruned = await prune();
    expect(pruned.stdout).toContain(`job ${record.id} kept: the stash holds work made on ${wt.branch} (stash@{0}: On ${wt.branch}: half-done rewrite)`);
    expect(git(wt.path, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe(wt.branch);
  });

  it('finding 2: keeps a commit the agent made on a detached HEAD, which only the worktree reflog holds', async () => {
    let lost = '';
    const { record, wt } = await job((w) => {
      git(w.path, 'checkout', '-q', '--detach');
      writeFileSync(join(w.path, 'fix.txt'), 'the fix\n');
      git(w.path, 'add', 'fix.txt');
      git(w.path, 'commit', '-qm', 'fix on a detached HEAD');
      lost = git(w.path, 'rev-parse', 'HEAD');
      git(w.path, 'checkout', '-q', w.branch);
    });
    expect(record.worktree?.kept).toBe(true);
    expect(record.worktree?.warnings.join('\n')).toContain('the job made commits that are on no branch');
    const pruned = await prune();
    expect(pruned.stdout).toContain(`job ${record.id} kept: 1 commit(s) the job made are on no branch, only in a reflog (${lost.slice(0, 12)})`);
    expect(existsSync(wt.path)).toBe(true);
    expect(reachable(dirs.repo, lost)).toBe(true);
  });

  it('finding 2, same class: keeps a commit the agent undid with git reset --hard (only the branch and HEAD reflogs hold it)', async () => {
    let undone = '';
    const { record, wt } = await job((w) => {
      writeFileSync(join(w.path, 'feature.txt'), 'a feature\n');
      git(w.path, 'add', 'feature.txt');
      git(w.path, 'commit', '-qm', 'a feature');
      undone = git(w.path, 'rev-parse', 'HEAD');
      git(w.path, 'reset', '-q', '--hard', w.baseCommit);
    });
    const pruned = await prune();
    expect(pruned.stdout).toContain(`job ${record.id} kept: 1 commit(s) the job made are on no branch, only in a reflog (${undone.slice(0, 12)})`);
    expect(git(dirs.repo, 'branch', '--list', wt.branch)).not.toBe('');
    expect(reachable(dirs.repo, undone)).toBe(true);
  });

  it("finding 3: never removes a worktree another job reused the path of", async () => {
    const a = await job((w) => writeFileSync(join(w.path, 'a.txt'), 'from A\n'));
    // The user reviews A and removes it with the command the report printed.
    const remove = a.record.worktree?.commands.remove ?? '';
    expect(remove).not.toBe('');
    execFileSync('sh', ['-c', remove]);
    // B gets the same path (the lowest free <repo>-<n>, on purpose: the prompt cache) and is still running.
    const b = await prepareWorktree(dirs.repo, join(dirs.state, 'worktrees'), makeRecord().id);
    expect(b.path).toBe(a.wt.path);

    const pruned = await prune();
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout).toContain(`removed job ${a.record.id}: record, left ${b.path} alone: ${b.path} is now the worktree of branch ${b.branch}`);
    expect(git(b.path, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe(b.branch);
    expect(git(dirs.repo, 'worktree', 'list')).toContain(b.path);
  });

  it("finding 3, same class: never touches a path that is now another repository's worktree", async () => {
    const a = await job((w) => writeFileSync(join(w.path, 'a.txt'), 'from A\n'));
    execFileSync('sh', ['-c', a.record.worktree?.commands.remove ?? 'false']);
    const other = makeRepo('la-other-');
    git(other, 'worktree', 'add', '--quiet', '-b', 'theirs', a.wt.path);
    writeFileSync(join(a.wt.path, 'theirs.txt'), 'not ours\n');

    const pruned = await prune();
    expect(pruned.stdout).toContain(`removed job ${a.record.id}: record, left ${a.wt.path} alone: ${a.wt.path} is not a worktree of ${dirs.repo}`);
    expect(pruned.stdout).not.toContain(`worktree ${a.wt.path},`);
    expect(readFileSync(join(a.wt.path, 'theirs.txt'), 'utf8')).toBe('not ours\n');
    expect(git(other, 'worktree', 'list')).toContain(a.wt.path);
  });

  it('a job whose repository was deleted is pruned: its record goes, the folder someone left at its path stays', async () => {
    const repo = makeRepo('la-gone-');
    const { record, wt } = await finishedWorktreeJob(store, repo, (w) => writeFileSync(join(w.path, 'a.txt'), 'A\n'));
    rmSync(repo, { recursive: true, force: true });
    const pruned = await prune();
    expect(pruned.stdout).toContain(`removed job ${record.id}: record, left ${wt.path} alone: ${wt.path} is no longer a git worktree`);
    expect(readFileSync(join(wt.path, 'a.txt'), 'utf8')).toBe('A\n');
    expect((await store.ids()).toArray()).not.toContain(record.id);
  });
});
