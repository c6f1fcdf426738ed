/**
 * `localagents run` on a terminal while a slow model generates: the status
 * area shows the open request with its output count growing between redraws.
 * The built binary under a pseudo-terminal, one real Claude Code run.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../sim/index.js';
import { makeDirs, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { runCliInPty } from './cli-process.js';

const words = (n: number): string => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

describe('localagents run: live token count', { timeout: 120_000 }, () => {
  let dirs: E2EDirs;
  let sim: Simulator;
  beforeAll(async () => {
    dirs = makeDirs();
    // ~600 tokens at 12 ms each: about seven seconds of visible generation.
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, script: [{ text: words(340), tokenDelayMs: 12 }] });
    writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(dirs.root, { recursive: true, force: true });
    rmSync(dirs.repo, { recursive: true, force: true });
  });

  it('shows the open request generating, its output count growing, with a speed', async () => {
    const shown = await runCliInPty(['--config', dirs.config, 'run', 'Write a long answer.'], [], {
      cwd: dirs.repo,
      env: { ...serverEnv(dirs), TERM: 'xterm' },
      columns: 160,
    });
    expect(shown.code).toBe(0);
    const counts = [...shown.stdout.matchAll(/request 1: generating for \d+ s, prompt [\d,k]+ tokens \([\d,k]+ cached\), output ~([\d,]+) tokens at [\d,.]+ tok\/s/g)].map((m) =>
      Number((m[1] ?? '').replace(/,/g, '')),
    );
    expect(new Set(counts).size, `counts drawn: ${counts.join(' ')}`).toBeGreaterThanOrEqual(2);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
  });
});
