/**
 * What became of each job's work, found and recorded as it becomes known, with
 * real jobs (the real Claude Code against the simulator, over MCP), real git and
 * the real CLI: a worktree job merged with `localagents merge`, one merged by hand
 * with git (found by `prune --dry-run`), one whose worktree and branch were thrown
 * away, one followed up with resume_job, in-place jobs kept, reverted and not yet
 * committed. Each shows in `show`, in `usage` (per model and per job) and in
 * list_models, with exact counts and the unknown ones said as unknown.
 */
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { runCli, type CliResult } from '../cli/cli-process.js';
import { connect, makeDirs, ok, serverEnv, writeConfig, type Connected, type E2EDirs } from '../e2e/harness.js';
import { startSimulator, type Simulator } from '../sim/index.js';

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

describe('job outcomes', { timeout: 300_000 }, () => {
  let dirs: E2EDirs;
  let sim: Simulator;
  let server: Connected;
  const cli = (...args: string[]): Promise<CliResult> => runCli(['--config', dirs.config, ...args], { cwd: dirs.repo, env: serverEnv(dirs) });
  const show = async (id: string): Promise<JobRecord> => {
    const shown = await cli('show', id, '--json');
    expect(shown.code, shown.stderr).toBe(0);
    return JSON.parse(shown.stdout) as JobRecord;
  };
  const showText = async (id: string): Promise<string> => {
    const shown = await cli('show', id);
    expect(shown.code, shown.stderr).toBe(0);
    return shown.stdout;
  };
  /** A job that writes `file` (in its worktree, or in place) and ends. */
  const run = async (file: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const done = ok(await server.call('run_agent', { task: `WRITE ${file}`, wait_s: 120, ...args }));
    expect(done.status, JSON.stringify(done)).toBe('succeeded');
    return done;
  };
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    dirs = makeDirs();
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, slots: 1 });
    writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
    // Each task names the file to write; after the write's result, the job ends. The task is the prompt's last
    // WRITE: Claude Code's context before it may quote earlier tasks (a merge commit's message names its job's).
    sim.setScript((req) => {
      const asked = [...req.lastUserText.matchAll(/WRITE (\S+)/g)].at(-1)?.[1];
      return asked === undefined ? { text: 'done' } : { toolUse: { name: 'Write', input: { file_path: asked, content: `${asked} by the agent\n` } } };
    });
    server = await connect(dirs);

    ids.merged = String((await run('merged.txt', { isolation: 'worktree' })).id);
    ids.byGit = String((await run('by-git.txt', { isolation: 'worktree' })).id);
    ids.discarded = String((await run('discarded.txt', { isolation: 'worktree' })).id);
    ids.inPlaceKept = String((await run('kept.txt', { isolation: 'none' })).id);
    // A job that only answers: nothing for git to find, so the usage index keeps its row (outcome unknown) ...
    const answered = ok(await server.call('run_agent', { task: 'Which files are here?', isolation: 'none', wait_s: 120 }));
    ids.first = String(answered.id);
    expect((await cli('usage')).code).toBe(0);
    // ... and its follow-up must reach that row (noteSettledJobChanged).
    ids.followUp = String((await run('second.txt', { resume_job: ids.first })).id);
  }, 300_000);

  afterAll(async () => {
    await server?.close();
    await sim?.close();
  });

  it('localagents merge records the job merged, by whom, into what', async () => {
    const merged = await cli('merge', ids.merged!);
    expect(merged.code, merged.stderr).toBe(0);
    const record = await show(ids.merged!);
    expect(record.outcome?.fate).toMatchObject({ kind: 'merged', by: 'localagents merge' });
    expect(record.outcome?.fate?.detail).toContain(`merged local-agent/${ids.merged} into main in ${dirs.repo}`);
    expect(await showText(ids.merged!)).toMatch(/outcome: merged \(localagents merge, \d{4}-\d\d-\d\d \d\d:\d\d\): merged local-agent\//);
  });

  it('a branch merged by hand is found merged by git (here by prune --dry-run, which removes nothing)', async () => {
    const wt = (await show(ids.byGit!)).worktree!;
    git(wt.path, 'add', '-A');
    git(wt.path, 'commit', '-qm', 'the agent work');
    git(dirs.repo, 'merge', '--no-edit', '-q', wt.branch);
    const dry = await cli('prune', '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    const record = await show(ids.byGit!);
    expect(record.outcome?.fate).toMatchObject({ kind: 'merged', by: 'git, checked by localagents prune' });
    expect(record.outcome?.fate?.detail).toBe(`${wt.branch} (${git(dirs.repo, 'rev-parse', wt.branch).slice(0, 12)}) is in main of ${dirs.repo}`);
  });

  it('a worktree and branch removed unmerged is discarded', async () => {
    const wt = (await show(ids.discarded!)).worktree!;
    expect(wt.kept).toBe(true);
    git(dirs.repo, 'worktree', 'remove', '--force', wt.path);
    git(dirs.repo, 'branch', '-D', wt.branch);
    const text = await showText(ids.discarded!);
    expect(text).toContain(`outcome: discarded (git, checked by localagents show`);
    expect(text).toContain(`its worktree ${wt.path} is gone and branch ${wt.branch} was deleted, with no merge of it in main's reflog`);
  });

  it('a job resumed with a new task says which job followed it up', async () => {
    const record = await show(ids.first!);
    expect(record.outcome?.followed_up_by?.job).toBe(ids.followUp);
    expect(await showText(ids.first!)).toContain(`followed up by job ${ids.followUp} (resume_job with a new task), so not counted as kept`);
    // The follow-up ran in place; its file is not committed (the commits below leave it out), so its outcome is unknown.
    const followUp = await show(ids.followUp!);
    expect(followUp.left_tree?.files.map((f) => f.path)).toEqual(['second.txt']);
    expect(followUp.outcome).toBeUndefined();
    expect(await showText(ids.followUp!)).toContain('outcome: unknown (not merged, discarded or committed yet, as far as localagents can tell)');
  });

  it('in place: the files it left, compared at the next commit, say kept or reverted; before a commit, unknown', async () => {
    git(dirs.repo, 'add', 'kept.txt');
    git(dirs.repo, 'commit', '-qm', 'keep the agent file');
    const kept = await show(ids.inPlaceKept!);
    expect(kept.outcome?.fate).toMatchObject({ kind: 'kept_in_tree', by: 'git, checked by localagents show' });
    expect(kept.outcome?.fate?.detail).toContain(`its 1 changed file(s) are as it left them in commit ${git(dirs.repo, 'rev-parse', 'HEAD').slice(0, 12)}`);

    ids.inPlaceReverted = String((await run('reverted.txt', { isolation: 'none' })).id);
    rmSync(join(dirs.repo, 'reverted.txt'));
    writeFileSync(join(dirs.repo, 'mine.txt'), 'my own change\n');
    git(dirs.repo, 'add', 'mine.txt');
    git(dirs.repo, 'commit', '-qm', 'my change, without the agent file');
    expect(await showText(ids.inPlaceReverted)).toContain('outcome: reverted: its changes were neither committed nor left in the tree (git, checked by localagents show');

    ids.pending = String((await run('pending.txt', { isolation: 'none' })).id);
    expect(await showText(ids.pending)).toContain('outcome: unknown');
  });

  it('usage and list_models count them per model: kept, lost, unknown, exactly', async () => {
    const model = (await show(ids.merged!)).model.served!;
    // kept: merged, merged by git, in place kept; lost: discarded, followed up, reverted; unknown: the follow-up, the pending one.
    const expected = { model, kept: 3, lost: 3, unknown: 2 };
    const usage = await cli('usage', '--json');
    expect(usage.code, usage.stderr).toBe(0);
    expect((JSON.parse(usage.stdout) as { kept_by_model: unknown[] }).kept_by_model).toEqual([expected]);
    const byJob = await cli('usage', '--by', 'job', '--json');
    const rows = new Map((JSON.parse(byJob.stdout) as { rows: { key: string; outcomes: unknown }[] }).rows.map((r) => [r.key, r.outcomes]));
    expect(rows.get(ids.merged!)).toEqual({ kept: 1, lost: 0, unknown: 0 });
    expect(rows.get(ids.discarded!)).toEqual({ kept: 0, lost: 1, unknown: 0 });
    expect(rows.get(ids.first!)).toEqual({ kept: 0, lost: 1, unknown: 0 });
    expect(rows.get(ids.pending!)).toEqual({ kept: 0, lost: 0, unknown: 1 });
    const text = await cli('usage', '--by', 'model');
    expect(text.stdout).toContain(`${model}: 3 of 8 jobs kept (3 lost, 2 unknown)`);

    const listed = await server.call('list_models');
    const words = (listed.content[0] as { text: string }).text;
    expect(words).toContain(`jobs kept (merged or committed), last 30 days: ${model} 3 of 8 (3 lost, 2 unknown)`);
    expect(ok(listed).kept).toEqual({ days: 30, jobs: 8, capped: false, models: [expected] });
  });
});
