/**
 * Worktree jobs whose work is easy to miss, run for real: the real Claude Code
 * binary runs the agent's git and shell commands (scripted by the simulator) in
 * the worktree; the record and the repository show what was kept.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorktreeInfo } from '../../src/jobs/record/job-record.js';
import { gitOut } from '../helpers/git-repo.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { endpointYaml, ok, startInProcess, type InProcess } from './in-process.js';

const bash = (command: string): { toolUse: { name: string; input: Record<string, string> } } => ({
  toolUse: { name: 'Bash', input: { command, description: 'Run it' } },
});

describe('a worktree job that', { timeout: 120_000 }, () => {
  let sim: Simulator;
  let h: InProcess;

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true });
    h = await startInProcess({ yaml: endpointYaml(sim.url) });
    writeFileSync(join(h.dirs.repo, '.gitignore'), 'dist/\nnode_modules/\n');
    gitOut(h.dirs.repo, 'add', '.gitignore');
    gitOut(h.dirs.repo, 'commit', '-q', '-m', 'ignore build output');
  });
  afterAll(async () => {
    await h?.close();
    await sim?.close();
  });

  async function job(commands: string): Promise<WorktreeInfo> {
    sim.setScript([bash(commands), { text: 'Done.' }]);
    const record = ok(await h.call('run_agent', { task: 'Do it.', isolation: 'worktree', wait_s: 100 }));
    expect(record.status).toBe('succeeded');
    return record.worktree as WorktreeInfo;
  }

  it('committed, then checked out the base again: the branch and worktree are kept with the commit', async () => {
    const wt = await job('echo work > agent.txt && git add agent.txt && git commit -qm "agent work" && git checkout -q --detach HEAD~1');
    expect(wt).toMatchObject({ kept: true, commits: 1 });
    expect(existsSync(wt.path)).toBe(true);
    expect(gitOut(h.dirs.repo, 'show', `${wt.branch}:agent.txt`)).toBe('work\n');
    expect(gitOut(h.dirs.repo, 'log', '-1', '--format=%s', wt.branch).trim()).toBe('agent work');
  });

  it('left only ignored build output outside the caches: kept, and the record lists the files', async () => {
    const wt = await job('mkdir -p dist node_modules/x && echo built > dist/app.js && echo > node_modules/x/i.js');
    expect(wt).toMatchObject({ kept: true, commits: 0, ignored_files: ['dist/', 'node_modules/'], untracked_files: [] });
    expect(wt.warnings).toContain('the job left files git ignores, kept with the worktree: dist/ (build caches listed in defaults.worktree_caches do not keep a worktree)');
    expect(existsSync(join(wt.path, 'dist', 'app.js'))).toBe(true);
  });

  it('left only a build cache: removed, and the record still lists what was there', async () => {
    const wt = await job('mkdir -p node_modules/x && echo > node_modules/x/i.js');
    expect(wt).toMatchObject({ kept: false, ignored_files: ['node_modules/'] });
    expect(existsSync(wt.path)).toBe(false);
    expect(gitOut(h.dirs.repo, 'branch', '--list', wt.branch)).toBe('');
  });
});
