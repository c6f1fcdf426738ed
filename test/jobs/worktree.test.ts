import { existsSync, mkdirSync, mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finishWorktree, prepareWorktree } from '../../src/jobs/git/worktree.js';
import { gitOut, makeRepo } from '../helpers/git-repo.js';

const wtDir = (): string => mkdtempSync(join(tmpdir(), 'la-wts-'));
const JOB = '20261129-111500-abcdefghjkmn';

describe('worktree isolation', () => {
  it('starts at HEAD on local-agent/<job>, keeping the relative position, and keeps changes with a diffstat', async () => {
    const repo = makeRepo();
    const wt = await prepareWorktree(join(repo, 'pkg'), wtDir(), JOB);
    expect(wt.branch).toBe(`local-agent/${JOB}`);
    expect(wt.workDir).toBe(join(wt.path, 'pkg'));
    writeFileSync(join(wt.workDir, 'new.txt'), 'hello\n');
    writeFileSync(join(wt.workDir, 'a.txt'), 'a\nb\n');
    const info = await finishWorktree(wt);
    expect(info.kept).toBe(true);
    expect(info.diffstat).toContain('pkg/new.txt');
    expect(info.diffstat).toContain('2 files changed, 2 insertions(+)');
    expect(existsSync(join(wt.path, 'pkg', 'new.txt'))).toBe(true);
    expect(gitOut(repo, 'branch', '--list', wt.branch)).toContain(wt.branch);
    // The caller's tree is untouched.
    expect(existsSync(join(repo, 'pkg', 'new.txt'))).toBe(false);
    expect(readFileSync(join(repo, 'pkg', 'a.txt'), 'utf8')).toBe('a\n');
  });

  it('keeps a worktree whose only change is a commit', async () => {
    const repo = makeRepo();
    const wt = await prepareWorktree(repo, wtDir(), JOB);
    writeFileSync(join(wt.path, 'c.txt'), 'c\n');
    gitOut(wt.path, 'add', 'c.txt');
    gitOut(wt.path, 'commit', '-q', '-m', 'agent commit');
    const info = await finishWorktree(wt);
    expect(info).toMatchObject({ kept: true, commits: 1 });
    expect(info.diffstat).toContain('c.txt');
  });

  it('removes an unchanged worktree and its branch', async () => {
    const repo = makeRepo();
    const wt = await prepareWorktree(repo, wtDir(), JOB);
    const info = await finishWorktree(wt);
    expect(info.kept).toBe(false);
    expect(existsSync(wt.path)).toBe(false);
    expect(gitOut(repo, 'branch', '--list', wt.branch)).toBe('');
    expect(info.warnings).toEqual([]);
  });

  it('reuses the path of a removed worktree, so the next job of the repository sees the same working directory (prompt cache)', async () => {
    const repo = makeRepo();
    const dir = wtDir();
    const first = await prepareWorktree(repo, dir, JOB);
    expect((await finishWorktree(first)).kept).toBe(false);
    const second = await prepareWorktree(repo, dir, '20261129-111600-bcdefghjkmnp');
    expect(second.path).toBe(first.path);
    // A kept worktree keeps its path; a job running beside it gets another.
    writeFileSync(join(second.path, 'kept.txt'), 'kept\n');
    expect((await finishWorktree(second)).kept).toBe(true);
    const third = await prepareWorktree(repo, dir, '20261129-111700-cdefghjkmnpq');
    const fourth = await prepareWorktree(repo, dir, '20261129-111800-defghjkmnpqr');
    expect(new Set([second.path, third.path, fourth.path]).size).toBe(3);
    expect(readFileSync(join(second.path, 'kept.txt'), 'utf8')).toBe('kept\n');
  });

  it('warns that uncommitted changes in the caller tree are not in the worktree', async () => {
    const repo = makeRepo();
    writeFileSync(join(repo, 'README.md'), '# changed\n');
    const wt = await prepareWorktree(repo, wtDir(), JOB);
    expect(wt.warnings[0]).toMatch(/uncommitted changes; they are not in the worktree, which starts from HEAD [0-9a-f]{12}/);
    expect(readFileSync(join(wt.path, 'README.md'), 'utf8')).toBe('# demo\n');
  });

  it('refuses a directory outside git, and a repository with no commit, before touching anything', async () => {
    const plain = mkdtempSync(join(tmpdir(), 'la-plain-'));
    await expect(prepareWorktree(plain, wtDir(), JOB)).rejects.toThrow(`isolation "worktree" needs a git repository, and ${plain} is not inside one`);
    const empty = mkdtempSync(join(tmpdir(), 'la-empty-'));
    gitOut(empty, 'init', '-q');
    await expect(prepareWorktree(empty, wtDir(), JOB)).rejects.toThrow(/needs a commit to start from, and .* has none yet/);
  });
});

describe('a worktree that holds work is never deleted', () => {
  it('keeps the branch when the agent committed, then checked out the base', async () => {
    const repo = makeRepo();
    const wt = await prepareWorktree(repo, wtDir(), JOB);
    writeFileSync(join(wt.path, 'c.txt'), 'c\n');
    gitOut(wt.path, 'add', 'c.txt');
    gitOut(wt.path, 'commit', '-q', '-m', 'agent commit');
    const commit = gitOut(wt.path, 'rev-parse', 'HEAD').trim();
    gitOut(wt.path, 'checkout', '-q', '--detach', wt.baseCommit);
    const info = await finishWorktree(wt);
    expect(info).toMatchObject({ kept: true, commits: 1 });
    expect(existsSync(wt.path)).toBe(true);
    expect(gitOut(repo, 'rev-parse', wt.branch).trim()).toBe(commit);
  });

  it('keeps the worktree when the commit is on no branch any more (reset), and says how to rescue it', async () => {
    const repo = makeRepo();
    const wt = await prepareWorktree(repo, wtDir(), JOB);
    writeFileSync(join(wt.path, 'c.txt'), 'c\n');
    gitOut(wt.path, 'add', 'c.txt');
    gitOut(wt.path, 'commit', '-q', '-m', 'agent commit');
    const commit = gitOut(wt.path, 'rev-parse', 'HEAD').trim();
    gitOut(wt.path, 'reset', '-q', '--hard', wt.baseCommit);
    const info = await finishWorktree(wt);
    expect(info).toMatchObject({ kept: true, commits: 1 });
    expect(info.warnings.join('\n')).toContain(`the job made commits that are on no branch (${commit.slice(0, 12)})`);
    expect(gitOut(wt.path, 'cat-file', '-t', commit).trim()).toBe('commit');
  });

  it('reports ignored files the job made and keeps the worktree when they are not build caches', async () => {
    const repo = makeRepo();
    writeFileSync(join(repo, '.gitignore'), '*.log\nnode_modules/\n');
    gitOut(repo, 'add', '.gitignore');
    gitOut(repo, 'commit', '-q', '-m', 'ignore');
    const wt = await prepareWorktree(repo, wtDir(), JOB);
    writeFileSync(join(wt.path, 'results.log'), 'the only copy of the benchmark numbers\n');
    const info = await finishWorktree(wt);
    expect(info).toMatchObject({ kept: true, ignored_files: ['results.log'], untracked_files: [] });
    expect(info.warnings).toContain('the job left files git ignores, kept with the worktree: results.log (build caches listed in defaults.worktree_caches do not keep a worktree)');
    expect(readFileSync(join(wt.path, 'results.log'), 'utf8')).toContain('only copy');
  });

  it('removes an unchanged worktree whose only extra files are build caches, and reports them', async () => {
    const repo = makeRepo();
    writeFileSync(join(repo, '.gitignore'), '*.log\nnode_modules/\n__pycache__/\n');
    gitOut(repo, 'add', '.gitignore');
    gitOut(repo, 'commit', '-q', '-m', 'ignore');
    const wt = await prepareWorktree(repo, wtDir(), JOB);
    mkdirSync(join(wt.path, 'node_modules', 'left-pad'), { recursive: true });
    writeFileSync(join(wt.path, 'node_modules', 'left-pad', 'index.js'), '');
    mkdirSync(join(wt.path, 'pkg', '__pycache__'));
    writeFileSync(join(wt.path, 'pkg', '__pycache__', 'a.pyc'), '');
    const info = await finishWorktree(wt);
    expect(info).toMatchObject({ kept: false, ignored_files: ['node_modules/', 'pkg/__pycache__/'] });
    expect(existsSync(wt.path)).toBe(false);
    // The list is the user's: a name added there makes its files disposable too.
    const again = await prepareWorktree(repo, wtDir(), `${JOB.slice(0, -1)}x`);
    writeFileSync(join(again.path, 'build.log'), 'noise\n');
    expect(await finishWorktree(again, ['build.log'])).toMatchObject({ kept: false, ignored_files: ['build.log'] });
  });
});
