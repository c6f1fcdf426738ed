/**
 * `localagents init` on a machine with a llama-server and a vLLM running:
 * finds both, writes a commented models.yaml where the loader looks
 * ($XDG_CONFIG_HOME/localagents), which doctor then reads; never overwrites it.
 * With no config at all, doctor is not ok and says to run init.
 */
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDirs, serverEnv, type E2EDirs } from '../e2e/harness.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { runCli, type CliOptions } from './cli-process.js';

describe('localagents init', { timeout: 120_000 }, () => {
  let dirs: E2EDirs;
  let llama: Simulator;
  let vllm: Simulator;
  let opts: CliOptions;
  let xdg: string;

  beforeAll(async () => {
    dirs = makeDirs();
    llama = await startSimulator({ flavor: 'llama.cpp', modelId: 'unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL' });
    vllm = await startSimulator({ flavor: 'vllm', modelId: 'glm-5.3' });
    xdg = realpathSync(mkdtempSync(join(tmpdir(), 'la-xdg-')));
    opts = { cwd: dirs.repo, env: serverEnv(dirs, { XDG_CONFIG_HOME: xdg }) };
  });
  afterAll(async () => {
    await llama?.close();
    await vllm?.close();
  });

  it('without a config, doctor is not ok and says to run init', async () => {
    const doctor = await runCli(['doctor'], opts);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain('FAIL config: no models.yaml found');
    expect(doctor.stdout).toContain('fix: run localagents init');
  });

  it('finds the servers, writes models.yaml under XDG_CONFIG_HOME, and never overwrites it', async () => {
    const init = await runCli(['init', '--ports', `${llama.port},${vllm.port}`], opts);
    expect(init.code, init.stderr).toBe(0);
    const path = join(xdg, 'localagents', 'models.yaml');
    expect(init.stdout).toContain(`found llama.cpp at ${llama.url}, serving unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL`);
    expect(init.stdout).toContain(`found vllm at ${vllm.url}, serving glm-5.3`);
    expect(init.stdout).toContain(`wrote ${path}`);
    const written = readFileSync(path, 'utf8');
    expect(written).toContain(`  llama-${llama.port}:   # serving unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL\n    base_url: ${llama.url}\n    backend: llama.cpp`);
    expect(written).toContain('#     bring_up:');

    const models = await runCli(['models'], opts);
    expect(models.stdout).toContain(`config: ${path}`);
    expect(models.stdout).toContain(`vllm-${vllm.port} (vllm, ${vllm.url}): UP`);

    const again = await runCli(['init'], opts);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`error: ${path} already exists; localagents init never overwrites a config`);
    expect(readFileSync(path, 'utf8')).toBe(written);
  });
});
