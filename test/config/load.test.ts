/**
 * Loading the registry: the models.local.yaml sidecar merged over models.yaml,
 * api_key_env resolved from the environment passed in, and files re-read on every call.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { makeTempDir, oneEndpoint, type TempDir } from './temp-dir.js';

let tmp: TempDir;
beforeEach(async () => {
  tmp = await makeTempDir();
});
afterEach(() => tmp.remove());

const MAIN = `# hand-written
endpoints:
  gpu:
    base_url: http://gpu-box:8080
    max_jobs: 2
    notes: the 4090
  vllm:
    base_url: http://rack:8000
    backend: vllm
models:
  coder:
    endpoint: gpu
    notes: fast
  big:
    endpoint: vllm
    context: 131072
defaults:
  model: coder
  timeout_s: 100
  max_turns: 50
`;

const SIDECAR = `endpoints:
  gpu:
    base_url: http://gpu-box:9090
  laptop:
    base_url: http://127.0.0.1:1234
    backend: other
models:
  big:
    endpoint: laptop
  tiny:
    endpoint: gpu
defaults:
  timeout_s: 200
`;

const load = (env: Record<string, string> = {}): ReturnType<typeof loadConfig> =>
  loadConfig({ cwd: tmp.path, homeDir: join(tmp.path, 'home'), env });

describe('sidecar merge', () => {
  it('replaces same-named entries whole, appends new ones, and overrides defaults key by key', async () => {
    await tmp.write('models.yaml', MAIN);
    await tmp.write('models.local.yaml', SIDECAR);
    const config = await load();

    expect(config.path).toBe(join(tmp.path, 'models.yaml'));
    expect(config.sidecarPath).toBe(join(tmp.path, 'models.local.yaml'));
    expect(config.endpoints.map((e) => e.name)).toEqual(['gpu', 'vllm', 'laptop']);
    const gpu = config.endpoints.find((e) => e.name === 'gpu');
    // The sidecar entry replaces the whole entry: max_jobs and notes from models.yaml are gone.
    expect(gpu).toEqual({ name: 'gpu', base_url: 'http://gpu-box:9090', backend: 'llama.cpp', apiKey: undefined });
    expect(config.endpoints.find((e) => e.name === 'vllm')?.backend).toBe('vllm');

    expect(config.models.map((m) => m.name)).toEqual(['coder', 'big', 'tiny']);
    expect(config.models.find((m) => m.name === 'big')).toEqual({ name: 'big', endpoint: 'laptop', notes: '' });

    expect(config.defaults.timeout_s).toBe(200);
    expect(config.defaults.max_turns).toBe(50);
    expect(config.defaults.model).toBe('coder');
    expect(config.defaults.permission_mode).toBe('acceptEdits');
  });

  it('lets a hand-written model use an endpoint defined only in the sidecar', async () => {
    await tmp.write('models.yaml', 'models:\n  m:\n    endpoint: added\n');
    await tmp.write('models.local.yaml', oneEndpoint('added'));
    const config = await load();
    expect(config.models).toEqual([{ name: 'm', endpoint: 'added', notes: '' }]);
  });

  it('reports a bad sidecar by its own file name and line', async () => {
    await tmp.write('models.yaml', MAIN);
    await tmp.write('models.local.yaml', 'endpoints:\n  gpu:\n    base_url: http://gpu-box:9090\n    max_job: 3\n');
    await expect(load()).rejects.toThrow(
      `${join(tmp.path, 'models.local.yaml')}:4: endpoints.gpu.max_job: unknown key — did you mean max_jobs?`,
    );
  });

  it('reads the sidecar in the user config dir when there is no models.yaml (fresh machine after register_endpoint)', async () => {
    await tmp.write('home/.config/localagents/models.local.yaml', oneEndpoint('registered'));
    const config = await load();
    expect(config.path).toBeUndefined();
    expect(config.endpoints.map((e) => e.name)).toEqual(['registered']);
  });

  it('treats an empty or comment-only file as an empty registry', async () => {
    await tmp.write('models.yaml', '# nothing yet\n');
    await tmp.write('models.local.yaml', '');
    const config = await load();
    expect(config.endpoints).toEqual([]);
    expect(config.models).toEqual([]);
    expect(config.defaults.max_turns).toBe(200);
  });

  it('treats an empty section (`endpoints:` with nothing under it) as empty', async () => {
    await tmp.write('models.yaml', 'endpoints:\nmodels:\ndefaults:\n');
    const config = await load();
    expect(config.endpoints).toEqual([]);
    expect(config.defaults.timeout_s).toBe(1800);
  });
});

describe('re-reading', () => {
  it('sees an edit to models.yaml on the next call, with no cache', async () => {
    const file = await tmp.write('models.yaml', oneEndpoint('before'));
    expect((await load()).endpoints.map((e) => e.name)).toEqual(['before']);
    await writeFile(file, oneEndpoint('after'));
    expect((await load()).endpoints.map((e) => e.name)).toEqual(['after']);
  });
});

describe('api keys', () => {
  const withKeys = `endpoints:
  vllm:
    base_url: https://rack:8443
    backend: vllm
    api_key_env: RACK_KEY
  lmstudio:
    base_url: http://127.0.0.1:1234
    api_key: literal-key
  open:
    base_url: http://127.0.0.1:8080
`;

  it('resolves api_key_env from the env passed in, and api_key as written', async () => {
    await tmp.write('models.yaml', withKeys);
    const config = await load({ RACK_KEY: 'sk-from-env' });
    const keys = Object.fromEntries(config.endpoints.map((e) => [e.name, e.apiKey]));
    expect(keys).toEqual({ vllm: 'sk-from-env', lmstudio: 'literal-key', open: undefined });
  });

  it('loads without the key when the variable is unset, and says why on the endpoint and in the warnings', async () => {
    await tmp.write('models.yaml', withKeys);
    const config = await load({});
    const message = `${join(tmp.path, 'models.yaml')}:5: endpoints.vllm.api_key_env: environment variable RACK_KEY is not set; endpoint vllm reads its API key from it — set it in the environment localagents starts with (for Claude Code: the "env" of the MCP server entry), or use api_key`;
    expect(config.warnings).toEqual([message]);
    const vllm = config.endpoints.find((e) => e.name === 'vllm');
    expect(vllm).toMatchObject({ apiKey: undefined, apiKeyProblem: message });
    // The other endpoints are unaffected.
    expect(config.endpoints.find((e) => e.name === 'lmstudio')?.apiKey).toBe('literal-key');
  });

  it('treats a set but empty variable like an unset one', async () => {
    await tmp.write('models.yaml', withKeys);
    const config = await load({ RACK_KEY: '' });
    expect(config.warnings?.[0]).toContain('environment variable RACK_KEY is empty; endpoint vllm reads its API key from it');
  });

  it('needs no variable for an endpoint the sidecar replaced with one that has no api_key_env', async () => {
    await tmp.write('models.yaml', withKeys);
    await tmp.write('models.local.yaml', oneEndpoint('vllm', 'http://rack:8000'));
    const config = await load({});
    expect(config.endpoints.find((e) => e.name === 'vllm')?.apiKey).toBeUndefined();
  });
});
