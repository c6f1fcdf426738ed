/** Wrong input to the job commands: one clear line, what to do, and exit 2 (no Claude Code run). */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../sim/index.js';
import { makeDirs, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { runCli, type CliOptions } from './cli-process.js';

describe('argument errors', { timeout: 60_000 }, () => {
  let dirs: E2EDirs;
  let sim: Simulator;
  let opts: CliOptions;
  const cli = (...args: string[]): ReturnType<typeof runCli> => runCli(['--config', dirs.config, ...args], opts);

  beforeAll(async () => {
    dirs = makeDirs();
    sim = await startSimulator({ flavor: 'llama.cpp', slots: 1 });
    writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
    opts = { cwd: dirs.repo, env: serverEnv(dirs) };
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(dirs.root, { recursive: true, force: true });
    rmSync(dirs.repo, { recursive: true, force: true });
  });

  it.each(['show', 'log', 'cancel', 'diff'])('%s nope → exit 2, "no job id starts with" and where to find ids', async (command) => {
    const result = await cli(command, 'nope');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('error: no job id starts with "nope"\nlocalagents jobs --all lists the jobs on record.\n');
    const bad = await cli(command, '../x');
    expect(bad.stderr).toBe('error: "../x" is not a job id; expected the form 20261129-111500-7gk2mq4xrz9d, a prefix of it or of its last part, or last\nlocalagents jobs --all lists the jobs on record.\n');
  });

  it('a well-formed id with no job → exit 2, naming the id and the folder searched', async () => {
    const result = await cli('show', '20261129-111500-7gk2mq4xrz9d');
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: no job 20261129-111500-7gk2mq4xrz9d in ${dirs.state}/jobs\nlocalagents jobs --all lists the jobs on record.\n`);
  });

  it('run: an empty task, a bad --max-turns and a bad --isolation are refused before anything starts', async () => {
    const empty = await cli('run', '  ');
    expect(empty).toMatchObject({ code: 2, stderr: 'error: the task is empty\nPass the brief as one quoted argument, or - to read it from stdin.\n' });
    const turns = await cli('run', 'x', '--max-turns', '0');
    expect(turns).toMatchObject({ code: 2, stderr: 'error: --max-turns must be a positive whole number, not "0"\n' });
    const isolation = await cli('run', 'x', '--isolation', 'docker');
    expect(isolation).toMatchObject({
      code: 2,
      stderr: "error: option '--isolation <kind>' argument 'docker' is invalid. Allowed choices are none, worktree.\nlocalagents run --help shows the options and examples.\n",
    });
    expect(sim.requests.filter((r) => r.path === '/v1/messages')).toHaveLength(0);
  });

  it('run with a model nobody serves: model_unavailable with what is served now; exit 1 and no job folder', async () => {
    const result = await cli('run', '--model', 'glm-9', 'x');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('glm-9 is not running anywhere');
    expect(result.stderr).toContain('gpu → unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL');
    const jobs = await cli('jobs', '--all', '--json');
    expect(JSON.parse(jobs.stdout)).toEqual([]);
  });

  it('usage errors are one line and a pointer to --help, exit 2', async () => {
    expect(await cli('show')).toMatchObject({ code: 2, stdout: '', stderr: "error: missing required argument 'job'\nlocalagents show --help shows the options and examples.\n" });
    expect(await cli('jobs', '--bogus')).toMatchObject({ code: 2, stderr: "error: unknown option '--bogus'\nlocalagents jobs --help shows the options and examples.\n" });
    const unknown = await cli('stauts');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe("error: unknown command 'stauts'\nThe commands are mcp, models, init, doctor, run, jobs, show, log, cancel, diff, merge, prune, dashboard, usage, statusline; localagents --help explains them.\n");
  });

  it('every command has --help with examples', async () => {
    for (const command of ['run', 'jobs', 'show', 'log', 'cancel', 'diff', 'doctor']) {
      const help = await cli(command, '--help');
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`Usage: localagents ${command}`);
      expect(help.stdout).toContain('Examples:');
    }
  });
});
