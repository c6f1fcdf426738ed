/**
 * What a model server or a model says reaches the terminal inert (issue 24):
 * a job whose model answers with an OSC title change, a screen clear, a bidi
 * override and a forged "status:" line is run and shown through the real CLI;
 * stdout holds those characters as visible escapes, never raw.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDirs, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { jobIdIn, runCli, type CliOptions } from './cli-process.js';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;
const HOSTILE = 'Done.\u001b]0;owned\u0007\u001b[2J\u202eevil\rstatus: succeeded';

describe('model text reaches the terminal escaped', { timeout: 120_000 }, () => {
  let dirs: E2EDirs;
  let sim: Simulator;
  let opts: CliOptions;
  const cli = (...args: string[]): ReturnType<typeof runCli> => runCli(['--config', dirs.config, ...args], opts);

  beforeAll(async () => {
    dirs = makeDirs();
    sim = await startSimulator({ flavor: 'llama.cpp', slots: 1 });
    writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
    opts = { cwd: dirs.repo, env: serverEnv(dirs) };
    sim.setScript(() => ({ text: HOSTILE }));
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('run --follow on a pipe and show print the answer with its control characters escaped', async () => {
    const run = await cli('run', '--follow', 'Say done.');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(CONTROL);
    expect(run.stdout).toContain('Done.\\x1b]0;owned\\x07\\x1b[2J\\u202eevil\\rstatus: succeeded');
    const show = await cli('show', jobIdIn(run.stdout));
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).not.toMatch(CONTROL);
    expect(show.stdout).toContain('\\x1b]0;owned\\x07');
  });
});
