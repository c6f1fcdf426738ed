/**
 * Router mode on the real llama-server (docs/backends.md §3.1): `--models-dir` with two tiny models and a
 * damaged GGUF, `--models-max 1`. The simulator's router flavour is compared with it on the same requests; then the
 * built CLI's `doctor` lists the models without loading any (and warns that --models-max 1 is below the menu's
 * three), localagents over stdio lists them without loading any too, runs a job on an unloaded model with the
 * model's own window, runs two jobs on two models one after the other with one swap, and fails a job on the
 * damaged file with the router's words.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli } from '../cli/cli-process.js';
import { makeDirs, ok, serverEnv, writeConfig } from '../e2e/harness.js';
import { until } from '../helpers/processes.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { freePort } from './llama-server.js';
import { startLocalagents, type Localagents } from './mcp.js';

const CTX = 65536;

const get = async (url: string): Promise<{ status: number; json: unknown }> => {
  const res = await fetch(url);
  return { status: res.status, json: JSON.parse(await res.text()) as unknown };
};

const states = async (url: string): Promise<Record<string, string>> => {
  const body = (await get(`${url}/models`)).json as { data: Array<{ id: string; status: { value: string } }> };
  return Object.fromEntries(body.data.map((m) => [m.id, m.status.value]));
};

describe('llama-server router mode (--models-dir, --models-max 1)', () => {
  let child: ChildProcess;
  let log = '';
  let url: string;
  let sim: Simulator;
  let la: Localagents;
  const dir = mkdtempSync(join(tmpdir(), 'la-router-models-'));

  beforeAll(async () => {
    const models = inject('tinyModels');
    copyFileSync(models.eos, join(dir, 'tiny-eos.gguf'));
    // A second model: the always-EOS one again under another name (the random one writes thousands of tokens a turn).
    copyFileSync(models.eos, join(dir, 'tiny-other.gguf'));
    // A damaged GGUF: the first 100 kB of a good one.
    writeFileSync(join(dir, 'damaged.gguf'), readFileSync(models.eos).subarray(0, 100_000));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const args = ['--models-dir', dir, '--models-max', '1', '-c', String(CTX), '--parallel', '1', '--jinja', '--slots', '--metrics', '--host', '127.0.0.1', '--port', String(port), '-t', '2'];
    child = spawn(inject('llamaServer'), args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer): void => {
      log = (log + chunk.toString('utf8')).slice(-2_000_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const up = await until(async () => (await fetch(`${url}/health`).catch(() => undefined))?.status === 200, 60_000, 250);
    if (!up) throw new Error(`router did not come up:\n${log.slice(-4000)}`);
    sim = await startSimulator({
      flavor: 'llama.cpp',
      llamaBuild: 'sep2026',
      router: { models: [{ id: 'damaged', broken: true }, { id: 'tiny-eos' }, { id: 'tiny-other' }], modelsMax: 1, ctxSize: CTX, parallel: 1 },
    });
  });

  afterAll(async () => {
    await la?.close();
    await sim?.close();
    if (child !== undefined && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('the simulator answers as the router does: its /props, each model listed with its state and arguments, autoload=false, a failed load', async () => {
    for (const base of [url, sim.url]) {
      expect((await get(`${base}/props`)).json, base).toMatchObject({ role: 'router', max_instances: 1, models_autoload: true, model_path: 'none', default_generation_settings: { n_ctx: 0 } });
      const listed = (await get(`${base}/models`)).json as { data: Array<{ id: string; status: { value: string; args: string[] } }> };
      expect(listed.data.map((m) => [m.id, m.status.value]), base).toEqual([['damaged', 'unloaded'], ['tiny-eos', 'unloaded'], ['tiny-other', 'unloaded']]);
      for (const m of listed.data) {
        const args = m.status.args.join(' ');
        expect(args, base).toContain(`--ctx-size ${CTX}`);
        expect(args, base).toContain('--parallel 1');
        expect(args, base).toContain(`--alias ${m.id}`);
      }
      expect(await get(`${base}/props?model=tiny-eos&autoload=false`), base).toEqual({ status: 400, json: { error: { code: 400, message: 'model is not loaded', type: 'invalid_request_error' } } });
      expect(await get(`${base}/slots`), base).toEqual({ status: 400, json: { error: { code: 400, message: 'model name is missing from the request', type: 'invalid_request_error' } } });
      expect(await get(`${base}/props?model=nope`), base).toEqual({ status: 400, json: { error: { code: 400, message: "model 'nope' not found", type: 'invalid_request_error' } } });
      expect(await get(`${base}/props?model=damaged`), base).toEqual({ status: 500, json: { error: { code: 500, message: 'model name=damaged failed to load', type: 'server_error' } } });
      const after = (await get(`${base}/models`)).json as { data: Array<{ id: string; status: Record<string, unknown> }> };
      expect(after.data[0]?.status, base).toMatchObject({ value: 'unloaded', failed: true, exit_code: 1 });
    }
  });

  it('doctor lists the models, their states and windows and max_instances, warns that --models-max 1 is too few, and loads nothing', async () => {
    const dirs = makeDirs();
    const menu = ['damaged', 'tiny-eos', 'tiny-other'].map((id) => `  ${id}:\n    endpoint: gpu-box\n`).join('');
    writeConfig(dirs, `endpoints:\n  gpu-box:\n    base_url: ${url}\nmodels:\n${menu}defaults:\n  sandbox:\n    enabled: false\n`);
    const before = await states(url);
    const doctor = await runCli(['--config', dirs.config, 'doctor'], { cwd: dirs.repo, env: serverEnv(dirs) });
    expect(await states(url)).toEqual(before);
    expect(Object.values(before)).toEqual(['unloaded', 'unloaded', 'unloaded']);
    const args = "context 64k (llama.cpp router's arguments for the model (--ctx-size / --parallel))";
    expect(doctor.stdout).toContain('warn router gpu-box: a llama-server in router mode: it keeps up to 1 model loaded at once (max_instances 1, --models-max); 3 models, read without loading any:');
    expect(doctor.stdout).toContain(`damaged  [unloaded, its last load failed (exit code 1)]  ${args}`);
    expect(doctor.stdout).toContain(`tiny-eos  [unloaded]  ${args}`);
    expect(doctor.stdout).toContain(`tiny-other  [unloaded]  ${args}`);
    expect(doctor.stdout).toContain(
      "fix: gpu-box keeps at most 1 model loaded (--models-max 1), but your menu has 3 models on it (damaged, tiny-eos, tiny-other) and room for 3 jobs at once (its models' slots): jobs on different models will wait for each other; start llama-server with --models-max 3 or more",
    );
    rmSync(dirs.root, { recursive: true, force: true });
    rmSync(dirs.repo, { recursive: true, force: true });
  });

  it('list_models shows each model with its state and window, and loads nothing', async () => {
    la = await startLocalagents({ 'gpu-box': { url } });
    const before = await states(url);
    const listing = ok(await la.mcp.call('list_models'));
    const endpoint = (listing.endpoints as Array<{ server: { maxInstances?: number }; models: Array<{ id: string; routerStatus?: string; context?: number; contextSource: string }> }>)[0];
    expect(endpoint?.server.maxInstances).toBe(1);
    expect(endpoint?.models.map((m) => [m.id, m.routerStatus, m.context, m.contextSource])).toEqual(
      ['damaged', 'tiny-eos', 'tiny-other'].map((id) => [id, 'unloaded', CTX, "llama.cpp router's arguments for the model (--ctx-size / --parallel)"]),
    );
    expect(await states(url)).toEqual(before);
    expect(before['tiny-eos']).toBe('unloaded');
  });

  it('a job on an unloaded model succeeds, its record holding the loaded model’s window', async () => {
    const job = await la.finish((await la.start({ task: 'Say hello.', model: 'tiny-eos' })).id);
    expect(job.status, job.error).toBe('succeeded');
    expect((la.record(job.id).model as Record<string, unknown>)).toMatchObject({ served: 'tiny-eos', context: CTX, context_source: 'llama.cpp /props n_ctx (per slot)' });
  });

  it('with --models-max 1, two jobs on two models run one after the other with one swap, the second saying why it waited', async () => {
    const evictionsBefore = (log.match(/evicting idle LRU|removing LRU/g) ?? []).length;
    const first = await la.start({ task: 'Say hello.', model: 'tiny-eos' });
    const second = await la.start({ task: 'Say hello.', model: 'tiny-other' });
    const [r1, r2] = [await la.finish(first.id), await la.finish(second.id)];
    expect([r1.status, r2.status], `${r1.error} | ${r2.error}`).toEqual(['succeeded', 'succeeded']);
    const rec1 = la.record(first.id);
    const rec2 = la.record(second.id);
    expect(Date.parse(String(rec2.started_at))).toBeGreaterThanOrEqual(Date.parse(String(rec1.finished_at)));
    expect(String((rec2.model as Record<string, unknown>).endpoint_reason)).toContain('held 1 model at a time and tiny-eos was busy with job');
    const evictions = (log.match(/evicting idle LRU|removing LRU/g) ?? []).length - evictionsBefore;
    expect(evictions).toBeLessThanOrEqual(1);
  });

  it('a job on a damaged GGUF ends failed with the router’s message', async () => {
    const job = await la.finish((await la.start({ task: 'Say hello.', model: 'damaged' })).id);
    expect([job.status, job.error]).toEqual(['failed', 'the router could not load damaged: gpu-box answered HTTP 500: model name=damaged failed to load']);
  });
});
