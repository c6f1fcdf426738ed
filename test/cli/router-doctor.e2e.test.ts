/**
 * `localagents doctor` and `init` against the simulator's llama-server router (docs/backends.md §3.1), through the
 * built CLI: each lists the router's models with their states, windows and where each window came from, and its
 * max_instances; each warns when --models-max is below the models the menu expects at once (its models on the
 * router, capped by the jobs the router takes at once), and not when it is enough. Neither loads a model: the
 * router's own /models says the same before and after, and it saw no load.
 */
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDirs, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { runCli } from './cli-process.js';

const CTX = 65_536;
const ARGS_SOURCE = "llama.cpp router's arguments for the model (--ctx-size / --parallel)";

const states = async (sim: Simulator): Promise<Record<string, string>> => {
  const body = (await (await fetch(`${sim.url}/models`)).json()) as { data: Array<{ id: string; status: { value: string } }> };
  return Object.fromEntries(body.data.map((m) => [m.id, m.status.value]));
};

describe('doctor and init on a llama-server router', { timeout: 60_000 }, () => {
  let dirs: E2EDirs;
  let tight: Simulator;
  let two: Simulator;
  let roomy: Simulator;
  const noSandbox = 'defaults:\n  sandbox:\n    enabled: false\n';
  const menu = (endpoint: string, ids: readonly string[]): string => `models:\n${ids.map((id) => `  ${id}:\n    endpoint: ${endpoint}\n`).join('')}`;

  beforeAll(async () => {
    dirs = makeDirs();
    const models = [{ id: 'coder', loaded: true }, { id: 'writer' }, { id: 'vision' }];
    tight = await startSimulator({ flavor: 'llama.cpp', router: { models, modelsMax: 1, ctxSize: CTX, parallel: 1 } });
    two = await startSimulator({ flavor: 'llama.cpp', router: { models, modelsMax: 2, ctxSize: CTX, parallel: 1 } });
    roomy = await startSimulator({ flavor: 'llama.cpp', router: { models: [{ id: 'small' }, { id: 'big', parallel: 2 }], ctxSize: CTX, parallel: 1 } });
  });
  afterAll(async () => {
    await Promise.all([tight?.close(), two?.close(), roomy?.close()]);
    rmSync(dirs.root, { recursive: true, force: true });
    rmSync(dirs.repo, { recursive: true, force: true });
  });

  it('doctor lists the models, states, windows and max_instances, warns when --models-max 1 is below a menu of 3 at max_jobs 2, and loads nothing', async () => {
    const before = await states(tight);
    writeConfig(dirs, `endpoints:\n  gpu-box:\n    base_url: ${tight.url}\n    max_jobs: 2\n${menu('gpu-box', ['coder', 'writer', 'vision'])}${noSandbox}`);
    const result = await runCli(['--config', dirs.config, 'doctor'], { cwd: dirs.repo, env: serverEnv(dirs) });
    expect(result.stdout).toContain('warn router gpu-box: a llama-server in router mode: it keeps up to 1 model loaded at once (max_instances 1, --models-max); 3 models, read without loading any:');
    expect(result.stdout).toContain('coder  [loaded]  context 64k (llama.cpp /v1/models meta.n_ctx (per slot))');
    expect(result.stdout).toContain(`writer  [unloaded]  context 64k (${ARGS_SOURCE})`);
    expect(result.stdout).toContain(`vision  [unloaded]  context 64k (${ARGS_SOURCE})`);
    expect(result.stdout).toContain('slots 0 busy / 1 free of 1');
    expect(result.stdout).toContain('a job loads writer first, evicting the least recently used idle model of coder');
    expect(result.stdout).toContain(
      'fix: gpu-box keeps at most 1 model loaded (--models-max 1), but your menu has 3 models on it (coder, writer, vision) and max_jobs 2: jobs on different models will wait for each other; start llama-server with --models-max 2 or more',
    );
    expect(result.code, result.stdout).toBe(0);
    expect(await states(tight)).toEqual(before);
    expect(before).toEqual({ coder: 'loaded', writer: 'unloaded', vision: 'unloaded' });
    expect(tight.routerEvents).toEqual([]);
  });

  it('doctor does not warn when --models-max covers what max_jobs lets run at once', async () => {
    writeConfig(dirs, `endpoints:\n  gpu-box:\n    base_url: ${two.url}\n    max_jobs: 2\n${menu('gpu-box', ['coder', 'writer', 'vision'])}${noSandbox}`);
    const result = await runCli(['--config', dirs.config, 'doctor'], { cwd: dirs.repo, env: serverEnv(dirs) });
    expect(result.stdout).toContain('ok   router gpu-box: a llama-server in router mode: it keeps up to 2 models loaded at once (max_instances 2, --models-max); 3 models');
    expect(result.stdout).not.toContain('--models-max 3 or more');
    expect(result.stdout).not.toMatch(/fix: .*keeps at most/);
    expect(result.code, result.stdout).toBe(0);
    expect(two.routerEvents).toEqual([]);
  });

  it('init writes each router\'s models as the menu, lists them, and warns only for the router that keeps too few loaded', async () => {
    const config = `${dirs.root}/init-models.yaml`;
    const before = [await states(tight), await states(roomy)];
    const result = await runCli(['--config', config, 'init', '--ports', `${tight.port},${roomy.port}`], { cwd: dirs.repo, env: serverEnv(dirs) });
    expect(result.code, result.stderr).toBe(0);
    const [t, r] = [`llama-${tight.port}`, `llama-${roomy.port}`];
    expect(result.stdout).toContain(`found llama.cpp in router mode at ${tight.url}, serving coder, writer, vision`);
    expect(result.stdout).toContain(`warn router ${t}: a llama-server in router mode: it keeps up to 1 model loaded at once (max_instances 1, --models-max); 3 models`);
    expect(result.stdout).toContain(
      `fix: ${t} keeps at most 1 model loaded (--models-max 1), but your menu has 3 models on it (coder, writer, vision) and room for 3 jobs at once (its models' slots): jobs on different models will wait for each other; start llama-server with --models-max 3 or more`,
    );
    expect(result.stdout).toContain(`ok   router ${r}: a llama-server in router mode: it keeps up to 4 models loaded at once (max_instances 4, --models-max); 2 models`);
    expect(result.stdout).toContain(`big  [unloaded]  context 32k (${ARGS_SOURCE})`);
    expect(result.stdout).toContain('slots 2 once loaded (router arguments)');
    expect(result.stdout.match(/keeps at most/g)).toHaveLength(1);
    const written = readFileSync(config, 'utf8');
    expect(written).toContain(`models:\n  "coder":\n    endpoint: ${t}\n  "writer":\n    endpoint: ${t}\n  "vision":\n    endpoint: ${t}\n  "small":\n    endpoint: ${r}\n  "big":\n    endpoint: ${r}\n`);
    expect([await states(tight), await states(roomy)]).toEqual(before);
    expect([tight.routerEvents, roomy.routerEvents]).toEqual([[], []]);
  });
});
