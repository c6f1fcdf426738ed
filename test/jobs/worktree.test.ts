import { existsSync, mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finishWorktree, prepareWorktree } from '../../src/jobs/worktree.js';
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
