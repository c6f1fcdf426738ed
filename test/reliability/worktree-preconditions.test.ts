/**
 * isolation "worktree" on trees that cannot give one, or give one with
 * surprises: through run_agent, as the calling Claude meets them. A refusal
 * comes before any work and leaves the caller's tree exactly as it was.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitOut, makeRepo } from '../helpers/git-repo.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { endpointYaml, errorOf, ok, startInProcess, textOf, type InProcess } from './in-process.js';

const tempDir = (prefix: string): string => realpathSync(mkdtempSync(join(tmpdir(), prefix)));

/** Every file name and content under `dir` (git internals included), to prove nothing changed. */
function snapshot(dir: string): string {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else out.push(`${p}\n${readFileSync(p, 'latin1')}`);
    }
  };
  walk(dir);
  return out.join('\n');
}

function jobCount(h: InProcess): number {
  try {
    return readdirSync(join(h.dirs.state, 'jobs')).length;
  } catch {
    return 0;
  }
}

describe('isolation "worktree" preconditions', () => {
  let sim: Simulator;
  let h: InProcess;

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, script: [{ text: 'Looked around.' }] });
    h = await startInProcess({ yaml: endpointYaml(sim.url) });
  });
  afterAll(async () => {
    await h?.close();
    await sim?.close();
  });

  it('a tree that is not a git repository: an error result before any job exists, nothing touched', async () => {
    const plain = tempDir('la-plain-');
    writeFileSync(join(plain, 'notes.txt'), 'mine\n');
    const before = snapshot(plain);
    const jobsBefore = jobCount(h);
    const result = await h.call('run_agent', { task: 'Change things.', cwd: plain, isolation: 'worktree', wait_s: 30 });
    expect(errorOf(result)).toMatchObject({
      code: 'bad_argument',
      argument: 'isolation',
      message: `isolation "worktree" needs a git repository, and ${plain} is not inside one`,
      hint: 'Use isolation "none", or run git init and make a first commit there.',
    });
    expect(jobCount(h)).toBe(jobsBefore);
    expect(snapshot(plain)).toBe(before);
    expect(sim.requests.filter((r) => r.path === '/v1/messages')).toHaveLength(0);
  });

  it('a repository with no commit yet: an error result before any job exists, nothing touched', async () => {
    const fresh = tempDir('la-fresh-');
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: fresh });
    writeFileSync(join(fresh, 'draft.txt'), 'draft\n');
    const before = snapshot(fresh);
    const jobsBefore = jobCount(h);
    const result = await h.call('run_agent', { task: 'Change things.', cwd: fresh, isolation: 'worktree', wait_s: 30 });
    expect(errorOf(result)).toMatchObject({
      code: 'bad_argument',
      message: `isolation "worktree" needs a commit to start from, and ${fresh} has none yet`,
      hint: 'Make a first commit, or use isolation "none".',
    });
    expect(jobCount(h)).toBe(jobsBefore);
    expect(snapshot(fresh)).toBe(before);
    expect(sim.requests.filter((r) => r.path === '/v1/messages')).toHaveLength(0);
  });

  /** run_agent with isolation "worktree" in `cwd` is refused with `expected`; no job, no request, `tree` byte-identical. */
  async function refused(cwd: string, tree: string, expected: Record<string, unknown>): Promise<void> {
    const before = snapshot(tree);
    const jobsBefore = jobCount(h);
    const requestsBefore = sim.requests.length;
    const result = await h.call('run_agent', { task: 'Change things.', cwd, isolation: 'worktree', wait_s: 30 });
    expect(errorOf(result)).toMatchObject({ code: 'bad_argument', ...expected });
    expect(jobCount(h)).toBe(jobsBefore);
    expect(snapshot(tree)).toBe(before);
    expect(sim.requests.length).toBe(requestsBefore);
  }

  it('a bare repository: an error naming it bare, not "not inside a repository"', async () => {
    const bare = tempDir('la-bare-');
    execFileSync('git', ['clone', '-q', '--bare', h.dirs.repo, bare]);
    await refused(bare, bare, {
      argument: 'isolation',
      message: `isolation "worktree" needs a working tree, and ${bare} is a bare repository`,
      hint: 'Run from a clone with a working tree (git clone this repository), or use isolation "none".',
    });
  });

  it('cwd inside .git: an error saying so', async () => {
    const gitDir = join(h.dirs.repo, '.git');
    await refused(join(gitDir, 'refs'), gitDir, {
      argument: 'cwd',
      message: `cwd ${join(gitDir, 'refs')} is inside a .git folder, where git keeps its own data`,
    });
  });

  it('a merge in progress: an error naming the merge and how to finish it', async () => {
    const repo = makeRepo('la-merging-');
    gitOut(repo, 'checkout', '-q', '-b', 'other');
    writeFileSync(join(repo, 'README.md'), '# other\n');
    gitOut(repo, 'commit', '-q', '-am', 'other');
    gitOut(repo, 'checkout', '-q', 'main');
    writeFileSync(join(repo, 'README.md'), '# main\n');
    gitOut(repo, 'commit', '-q', '-am', 'main');
    expect(() => execFileSync('git', ['merge', '-q', 'other'], { cwd: repo, stdio: 'ignore' })).toThrow(); // a conflict
    const head = gitOut(repo, 'rev-parse', 'HEAD').trim();
    await refused(repo, repo, {
      argument: 'isolation',
      message: `${repo} is in the middle of a merge; a worktree would start from the half-done HEAD ${head.slice(0, 12)}`,
      hint: 'Finish it (git commit or git merge --abort), or use isolation "none".',
    });
  });

  it('a rebase in progress: an error naming the rebase', async () => {
    const repo = makeRepo('la-rebasing-');
    gitOut(repo, 'checkout', '-q', '-b', 'topic');
    writeFileSync(join(repo, 'README.md'), '# topic\n');
    gitOut(repo, 'commit', '-q', '-am', 'topic');
    gitOut(repo, 'checkout', '-q', 'main');
    writeFileSync(join(repo, 'README.md'), '# main\n');
    gitOut(repo, 'commit', '-q', '-am', 'main');
    gitOut(repo, 'checkout', '-q', 'topic');
    expect(() => execFileSync('git', ['rebase', '-q', 'main'], { cwd: repo, stdio: 'ignore' })).toThrow(); // a conflict
    const result = await h.call('run_agent', { task: 'Change things.', cwd: repo, isolation: 'worktree', wait_s: 30 });
    expect(errorOf(result).message).toMatch(new RegExp(`^${repo} is in the middle of a rebase`));
  });

  it('cwd in a folder that is not in HEAD: an error saying the worktree would not have it (not a libc message)', async () => {
    const fresh = join(h.dirs.repo, 'scratch', 'notes');
    mkdirSync(fresh, { recursive: true });
    const head = gitOut(h.dirs.repo, 'rev-parse', 'HEAD').trim();
    await refused(fresh, h.dirs.repo, {
      argument: 'cwd',
      message: `cwd ${fresh} is not in the commit the worktree starts from (HEAD ${head.slice(0, 12)} has no folder scratch/notes): the folder is untracked or ignored, so the worktree would not have it`,
      hint: 'Commit the folder first, pass a cwd that is in HEAD, or use isolation "none".',
    });
    rmSync(join(h.dirs.repo, 'scratch'), { recursive: true });
  });

  it('uncommitted changes: the job starts from HEAD and the record warns they are not in the worktree', async () => {
    writeFileSync(join(h.dirs.repo, 'README.md'), '# edited, not committed\n');
    const head = gitOut(h.dirs.repo, 'rev-parse', 'HEAD').trim();
    const record = ok(await h.call('run_agent', { task: 'Look around.', isolation: 'worktree', wait_s: 60 }));
    expect(record.status).toBe('succeeded');
    expect(record.warnings).toContain(`the caller's tree has uncommitted changes; they are not in the worktree, which starts from HEAD ${head.slice(0, 12)}`);
    expect((record.worktree as { base_commit: string }).base_commit).toBe(head);
    expect(readFileSync(join(h.dirs.repo, 'README.md'), 'utf8')).toBe('# edited, not committed\n');
    gitOut(h.dirs.repo, 'checkout', '--', 'README.md');
  });

  it('detached HEAD: the job starts from that commit and the record says so', async () => {
    const head = gitOut(h.dirs.repo, 'rev-parse', 'HEAD').trim();
    gitOut(h.dirs.repo, 'checkout', '-q', '--detach', head);
    const record = ok(await h.call('run_agent', { task: 'Look around.', isolation: 'worktree', wait_s: 60 }));
    expect(record.status).toBe('succeeded');
    expect(record.warnings).toContain(`the caller's HEAD is detached; the worktree starts from ${head.slice(0, 12)}`);
    expect((record.worktree as { base_commit: string }).base_commit).toBe(head);
    expect(textOf(await h.call('jobs', { job_id: String(record.id) }))).toContain(`warning: the caller's HEAD is detached`);
  });
});
