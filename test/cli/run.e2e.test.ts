/**
 * `localagents run` on a pipe, then every read-only command on the jobs it
 * left: the built binary → real Claude Code → the shim → the strict-Qwen
 * simulator. Two real Claude Code runs.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../sim/index.js';
import { makeDirs, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { jobIdIn, runCli, type CliOptions } from './cli-process.js';

/** Any character a terminal acts on rather than shows (newline aside). */
// eslint-disable-next-line no-control-regex
const TERMINAL_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

describe('localagents run, then show / log / diff / jobs / cancel', { timeout: 120_000 }, () => {
  let dirs: E2EDirs;
  let sim: Simulator;
  let opts: CliOptions;
  let worktreeJob = '';
  let failedJob = '';
  const cli = (...args: string[]): ReturnType<typeof runCli> => runCli(['--config', dirs.config, ...args], opts);

  beforeAll(async () => {
    dirs = makeDirs();
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, slots: 2 });
    writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
    opts = { cwd: dirs.repo, env: serverEnv(dirs) };
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(dirs.root, { recursive: true, force: true });
    rmSync(dirs.repo, { recursive: true, force: true });
  });

  it('--follow on a pipe prints one plain line per event, then the result, files and worktree; exit 0', async () => {
    sim.setScript((req) =>
      req.assistantTurns === 0
        ? { text: 'Creating notes.', toolUse: { name: 'Write', input: { file_path: 'notes.md', content: '# notes\n' } } }
        : { text: 'Wrote notes.md.' },
    );
    const run = await cli('run', '--follow', '--isolation', 'worktree', 'Write notes.md with a heading.');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    worktreeJob = jobIdIn(run.stdout);
    expect(run.stdout).not.toContain('\x1b'); // no redraw on a pipe
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`job ${worktreeJob} started (running); transcript: ${join(dirs.state, 'jobs', worktreeJob, 'transcript.txt')}`);
    const order = ['status: running', 'tool: Write notes.md', 'done after 2 turns: Wrote notes.md.', 'status: succeeded', `job ${worktreeJob}: succeeded after`];
    const at = order.map((text) => lines.findIndex((l) => l.includes(text)));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(run.stdout).toContain('result: Wrote notes.md.\nfiles touched: notes.md\nworktree kept: ');
    expect(run.stdout).toMatch(/ {2}notes\.md \| 1 \+\n {2}1 file changed, 1 insertion\(\+\)\n/);
    expect(run.stdout).toContain(`  review: localagents diff ${worktreeJob}\n`);
    expect(existsSync(join(dirs.repo, 'notes.md'))).toBe(false);
  });

  it('--no-follow prints the job id, then the failed result; exit 1', async () => {
    sim.setScript([{ toolUse: { name: 'Bash', input: { command: 'ls', description: 'list' } } }]);
    const run = await cli('run', '--no-follow', '--max-turns', '1', 'List the files, forever.');
    expect(run.code).toBe(1);
    failedJob = jobIdIn(run.stdout);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^job ${failedJob} started \\((queued|running)\\)`));
    expect(lines[1]).toBe(`localagents log ${failedJob} -f follows it from another shell`);
    expect(lines[2]).toMatch(new RegExp(`^job ${failedJob}: failed after `));
    expect(run.stdout).toContain('error: error_max_turns');
  });

  it('show: the report and where the logs are; --json parses and carries the record', async () => {
    const show = await cli('show', worktreeJob);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`job ${worktreeJob}: succeeded after`);
    expect(show.stdout).toMatch(/\nisolation +worktree\n/);
    expect(show.stdout).toContain(join(dirs.state, 'jobs', worktreeJob, 'requests.jsonl'));
    const json = await cli('show', worktreeJob, '--json');
    const record = JSON.parse(json.stdout) as { id: string; status: string; elapsed_s: number; worktree: { kept: boolean; diffstat: string } };
    expect(record).toMatchObject({ id: worktreeJob, status: 'succeeded', worktree: { kept: true } });
    expect(record.elapsed_s).toBeGreaterThan(0);
  });

  it('log: the whole transcript, its last lines with -n, and -f returns at once for a finished job', async () => {
    const transcript = readFileSync(join(dirs.state, 'jobs', worktreeJob, 'transcript.txt'), 'utf8');
    const log = await cli('log', worktreeJob);
    expect(log.stdout).toBe(transcript.split('\n').filter(Boolean).join('\n') + '\n');
    expect(log.stdout).toContain('tool: Write notes.md');
    const last = await cli('log', worktreeJob, '-n', '1');
    expect(last.stdout.trim()).toMatch(/ job succeeded$/);
    const follow = await cli('log', worktreeJob, '-f');
    expect(follow.code).toBe(0);
    expect(follow.stdout).toBe(transcript);
  });

  it('diff: the new file against the base commit, --stat, --json; a job run in place has none', async () => {
    const diff = await cli('diff', worktreeJob);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain('diff --git a/notes.md b/notes.md');
    expect(diff.stdout).toContain('+# notes');
    const stat = await cli('diff', worktreeJob, '--stat');
    expect(stat.stdout).toMatch(/notes\.md \| 1 \+/);
    const json = JSON.parse((await cli('diff', worktreeJob, '--json')).stdout) as { job_id: string; branch: string; diff: string };
    expect(json).toMatchObject({ job_id: worktreeJob, branch: `local-agent/${worktreeJob}` });
    expect(json.diff).toBe(diff.stdout);
    const inPlace = await cli('diff', failedJob);
    expect(inPlace.code).toBe(1);
    expect(inPlace.stderr).toBe(`error: job ${failedJob} ran in place (isolation none) in ${dirs.repo}: there is no worktree to diff\ngit -C ${dirs.repo} diff shows the uncommitted changes there (the job's and anyone else's).\n`);
  });

  it('jobs: nothing running by default, the table with --all, an array with --json', async () => {
    const live = await cli('jobs');
    expect(live.stdout).toBe('no running or queued jobs; localagents jobs --all shows the 2 finished ones\n');
    const all = await cli('jobs', '--all');
    const rows = all.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^ID +STATUS +ELAPSED +MODEL +TASK$/);
    expect(rows[1]).toMatch(new RegExp(`^${worktreeJob} +succeeded +\\d`));
    expect(rows[2]).toMatch(new RegExp(`^${failedJob} +failed +`));
    const json = JSON.parse((await cli('jobs', '--all', '--json')).stdout) as Array<{ id: string; status: string }>;
    expect(json.map((j) => [j.id, j.status])).toEqual([[worktreeJob, 'succeeded'], [failedJob, 'failed']]);
  });

  it('cancel of a finished job says so and succeeds', async () => {
    const cancel = await cli('cancel', worktreeJob);
    expect(cancel.code).toBe(0);
    expect(cancel.stderr).toBe(`job ${worktreeJob} had already ended: succeeded\n`);
    expect(cancel.stdout).toContain(`job ${worktreeJob}: succeeded after`);
  });

  it("a model's control characters reach the terminal escaped: run --follow on a pipe and show (issue 24)", async () => {
    sim.setScript(() => ({ text: 'Done.\u001b]0;owned\u0007\u001b[2J\u202eevil\rstatus: succeeded' }));
    const run = await cli('run', '--follow', 'Say done.');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(TERMINAL_CONTROL);
    expect(run.stdout).toContain('Done.\\x1b]0;owned\\x07\\x1b[2J\\u202eevil\\rstatus: succeeded');
    const show = await cli('show', jobIdIn(run.stdout));
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).not.toMatch(TERMINAL_CONTROL);
    expect(show.stdout).toContain('\\x1b]0;owned\\x07');
  });
});
