/**
 * isolation "worktree" on trees that cannot give one, or give one with
 * surprises: through run_agent, as the calling Claude meets them. A refusal
 * comes before any work and leaves the caller's tree exactly as it was.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitOut } from '../helpers/git-repo.js';
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
    expect(textOf(await h.call('job_status', { job_id: String(record.id) }))).toContain(`warning: the caller's HEAD is detached`);
  });
});
