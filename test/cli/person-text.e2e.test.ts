/**
 * A terminal speaks to a person: no output of the command line (help, tables,
 * reports, errors, hints, --json) names an MCP tool or tells anyone to "relay"
 * something or "ask the user" — those words are for the calling model. The same
 * facts (a model nobody serves, an empty config, the models footer, a resumable
 * job) still reach the person, worded for them.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobStore } from '../../src/jobs/record/job-store.js';
import { makeDirs, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { makeRecord, seedJob } from '../dashboard/fixtures.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { MODEL_WORDS } from '../helpers/model-words.js';
import { runCli, type CliOptions, type CliResult } from './cli-process.js';


function text(result: CliResult): string {
  return `${result.stdout}\n${result.stderr}`;
}

describe('what the command line prints is written for a person', { timeout: 300_000 }, () => {
  let dirs: E2EDirs;
  let sim: Simulator;
  let opts: CliOptions;
  let interrupted: string;
  let elsewhere: string;
  const cli = (...args: string[]): Promise<CliResult> => runCli(['--config', dirs.config, ...args], opts);

  beforeAll(async () => {
    dirs = makeDirs();
    sim = await startSimulator({ flavor: 'llama.cpp', slots: 1 });
    writeConfig(
      dirs,
      `endpoints:\n  gpu:\n    base_url: ${sim.url}\n    host: gpu-box\nmodels:\n  llama-99b:\n    notes: the big one\n    host: gpu-box\n    bring_up: llama-server -m llama-99b.gguf --jinja\n`,
    );
    opts = { cwd: dirs.repo, env: serverEnv(dirs) };
    const store = createJobStore(dirs.state);
    // A job whose server died (pid above pid_max) with a session: resumable.
    interrupted = (await seedJob(store, makeRecord({ status: 'running', session_id: 's-1', owner_pid: 4_194_305, finished_at: undefined, result: undefined }))).id;
    // A job running inside another server (this test process stands in for it).
    elsewhere = (await seedJob(store, makeRecord({ status: 'running', claude_pid: 4_194_306, finished_at: undefined, result: undefined }))).id;
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(dirs.root, { recursive: true, force: true });
    rmSync(dirs.repo, { recursive: true, force: true });
  });

  it('a model nobody serves: what to start, where, and how — no "ask the user", no "relay"', async () => {
    const result = await cli('run', '--model', 'llama-99b', 'x');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error: llama-99b is not running anywhere. Start it on gpu-box. Note: the big one Start command: llama-server -m llama-99b.gguf --jinja');
    expect(result.stderr).toContain('localagents models shows what each server serves now.');
    expect(text(result)).not.toMatch(MODEL_WORDS);
  });

  it('models ends with the commands to delegate, in words and in --json (snake_case keys)', async () => {
    const table = await cli('models');
    expect(table.stdout).toContain('To delegate a task: localagents run --model NAME');
    expect(text(table)).not.toMatch(MODEL_WORDS);
    const json = await cli('models', '--json');
    expect(json.stdout).not.toMatch(MODEL_WORDS);
    expect(json.stdout).toContain('"host_state": "up"');
    expect(json.stdout).not.toMatch(/"[a-z]+[A-Z][a-zA-Z]*":/);
  });

  it('an empty config points to localagents init', async () => {
    writeConfig(dirs, 'endpoints: {}\n');
    try {
      const result = await cli('models');
      expect(result.stdout).toContain('No endpoints configured. Run localagents init');
      expect(text(result)).not.toMatch(MODEL_WORDS);
    } finally {
      writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n    host: gpu-box\n`);
    }
  });

  it('a resumable job, a job of another server, and the help of every command', async () => {
    // The cancel waits out its owner's silence (15 s) while the other commands run.
    const cancelling = cli('cancel', elsewhere);
    const show = await cli('show', interrupted);
    expect(show.stdout).toContain('interrupted');
    expect(show.stdout).toContain(`continue it: in Claude Code, ask Claude to resume localagents job ${interrupted}`);
    const outputs = [show, await cli('show', interrupted, '--json'), await cli('jobs', '--all'), await cli('jobs', '--all', '--json'), await cli('log', interrupted)];
    const help = await runCli(['--help'], opts);
    outputs.push(help);
    for (const command of ['mcp', 'models', 'init', 'doctor', 'run', 'jobs', 'show', 'log', 'cancel', 'diff', 'merge', 'prune', 'dashboard']) outputs.push(await runCli([command, '--help'], opts));
    const cancel = await cancelling;
    expect(cancel.code).toBe(1);
    // Its owner is asked through the state directory; this one never answers, so the person gets the --force command.
    expect(cancel.stderr).toContain(`did not answer the cancel request`);
    expect(cancel.stderr).toContain(`localagents cancel --force ${elsewhere}`);
    outputs.push(cancel);
    for (const output of outputs) expect(text(output)).not.toMatch(MODEL_WORDS);
  });
});
