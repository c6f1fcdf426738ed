/**
 * `localagents doctor` against the simulator: every warning list_models has
 * reaches the report with its fix (here: /slots off, metrics off, a small
 * context window), and a failing check (an endpoint that is down) makes the
 * exit code non-zero.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../sim/index.js';
import { makeDirs, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { runCli } from './cli-process.js';

describe('localagents doctor', { timeout: 60_000 }, () => {
  let dirs: E2EDirs;
  let sim: Simulator;
  beforeAll(async () => {
    dirs = makeDirs();
    sim = await startSimulator({ flavor: 'llama.cpp', slotsEndpoint: false, metrics: false, context: 32_768 });
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(dirs.root, { recursive: true, force: true });
    rmSync(dirs.repo, { recursive: true, force: true });
  });

  it('reports every list_models warning with its fix; exit 0 while every check passes', async () => {
    writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
    const result = await runCli(['--config', dirs.config, 'doctor'], { cwd: dirs.repo, env: serverEnv(dirs) });
    expect(result.stdout).toContain('ok   endpoint gpu: up');
    expect(result.stdout).toContain('fix: /slots is off: start llama-server with --slots');
    expect(result.stdout).toContain('fix: metrics are off: start llama-server with --metrics');
    expect(result.stdout).toMatch(/fix: .*context 32768 < 128k/);
    expect(result.code).toBe(0);
  });

  it('exits non-zero when a check fails', async () => {
    writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n  gone:\n    base_url: http://127.0.0.1:9\n`);
    const result = await runCli(['--config', dirs.config, 'doctor'], { cwd: dirs.repo, env: serverEnv(dirs) });
    expect(result.stdout).toMatch(/FAIL endpoint gone: down/);
    expect(result.code).toBe(1);
  });

  // Needs bubblewrap and socat: the proof runs a real sandboxed job.
  it('shows every sandbox escape hatch of models.yaml and proves the sandbox holds with a real job', async () => {
    writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\ndefaults:\n  sandbox:\n    allow_write: ["~/.cache/pip"]\n    allow_read: ["~/.config/gh/config.yml"]\n    allowed_domains: [registry.npmjs.org]\n    unsandboxed_commands: ["docker *"]\n`);
    const env = serverEnv(dirs);
    const result = await runCli(['--config', dirs.config, 'doctor'], { cwd: dirs.repo, env });
    const home = env.HOME ?? '';
    expect(result.stdout).toContain(
      `ok   sandbox: on: Bash writes only the job's tree, what git needs to commit there and a private temp folder; credentials hidden; also writes ${home}/.cache/pip; also reads ${home}/.config/gh/config.yml; reaches registry.npmjs.org; runs unsandboxed: docker *`,
    );
    expect(result.stdout).toContain("ok   sandbox holds: a real sandboxed job's Bash could not write outside its tree, and could inside it (1 refusal)");
    expect(result.code).toBe(0);
  });
});
