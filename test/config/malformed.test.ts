/**
 * Broken models.yaml files and the exact message the user gets: file as given,
 * 1-based line, dotted key, and what was expected. Each case is a mistake people make.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';
import { makeTempDir, type TempDir } from './temp-dir.js';

let tmp: TempDir;
beforeEach(async () => {
  tmp = await makeTempDir();
});
afterEach(() => tmp.remove());

interface Case {
  readonly name: string;
  readonly yaml: string;
  /** The whole ConfigError message. */
  readonly message: string;
  /** line and key of the first issue. */
  readonly line: number | undefined;
  readonly key: string | undefined;
  readonly env?: Record<string, string>;
}

const CASES: readonly Case[] = [
  {
    name: 'YAML syntax error (unclosed quote)',
    yaml: 'endpoints:\n  gpu:\n    base_url: "http://gpu-box:8080\n    backend: vllm\n',
    message: 'models.yaml:4: YAML syntax error: Missing closing "quote',
    line: 4,
    key: undefined,
  },
  {
    name: 'tab indentation',
    yaml: 'endpoints:\n\tgpu:\n\t\tbase_url: http://gpu-box:8080\n',
    message: [
      'models.yaml:2: YAML syntax error: Tabs are not allowed as indentation',
      'models.yaml:3: YAML syntax error: Tabs are not allowed as indentation',
    ].join('\n'),
    line: 2,
    key: undefined,
  },
  {
    name: 'the file is a YAML list',
    yaml: '- base_url: http://gpu-box:8080\n- base_url: http://rack:8000\n',
    message: 'models.yaml:1: expected a mapping at the top level (endpoints:, models:, defaults:), got a list',
    line: 1,
    key: undefined,
  },
  {
    name: 'the top level is a plain string',
    yaml: '# my models\nhttp://gpu-box:8080\n',
    message: 'models.yaml:2: expected a mapping at the top level (endpoints:, models:, defaults:), got string "http://gpu-box:8080"',
    line: 2,
    key: undefined,
  },
  {
    name: 'unknown key close to a known one',
    yaml: 'endpoints:\n  gpu:\n    base_url: http://gpu-box:8080\n    maxjobs: 2\n',
    message: 'models.yaml:4: endpoints.gpu.maxjobs: unknown key — did you mean max_jobs?',
    line: 4,
    key: 'endpoints.gpu.maxjobs',
  },
  {
    name: 'baseurl typo: unknown key plus the missing base_url it was meant to be',
    yaml: 'endpoints:\n  gpu:\n    baseurl: http://gpu-box:8080\n',
    message: [
      'models.yaml:2: endpoints.gpu.base_url: required key is missing — expected an http:// or https:// URL such as http://gpu-box:8080',
      'models.yaml:3: endpoints.gpu.baseurl: unknown key — did you mean base_url?',
    ].join('\n'),
    line: 2,
    key: 'endpoints.gpu.base_url',
  },
  {
    name: 'unknown key with nothing close',
    yaml: 'models:\n  coder:\n    gpu_layers: 99\n',
    message: 'models.yaml:3: models.coder.gpu_layers: unknown key — expected one of notes, host, served_name, endpoint, context, bring_up, tags, env, max_turns, permission_mode',
    line: 3,
    key: 'models.coder.gpu_layers',
  },
  {
    name: 'unknown top-level section',
    yaml: 'endpoint:\n  gpu:\n    base_url: http://gpu-box:8080\n',
    message: 'models.yaml:1: endpoint: unknown key — did you mean endpoints?',
    line: 1,
    key: 'endpoint',
  },
  {
    name: 'wrong type (words for a number)',
    yaml: 'endpoints:\n  gpu:\n    base_url: http://gpu-box:8080\n    max_jobs: four\n',
    message: 'models.yaml:4: endpoints.gpu.max_jobs: expected an integer, got string "four"',
    line: 4,
    key: 'endpoints.gpu.max_jobs',
  },
  {
    name: 'base_url that is not a URL',
    yaml: 'endpoints:\n  gpu:\n    base_url: the gpu box\n',
    message: 'models.yaml:3: endpoints.gpu.base_url: "the gpu box" is not a URL; expected e.g. http://gpu-box:8080',
    line: 3,
    key: 'endpoints.gpu.base_url',
  },
  {
    name: 'base_url without http://',
    yaml: 'endpoints:\n  gpu:\n    base_url: gpu-box:8080\n',
    message: 'models.yaml:3: endpoints.gpu.base_url: "gpu-box:8080" has no http:// or https:// in front; did you mean http://gpu-box:8080?',
    line: 3,
    key: 'endpoints.gpu.base_url',
  },
  {
    name: 'non-http URL',
    yaml: 'endpoints:\n  gpu:\n    base_url: ws://gpu-box:8080\n',
    message: 'models.yaml:3: endpoints.gpu.base_url: "ws://gpu-box:8080" uses ws; expected an http:// or https:// URL',
    line: 3,
    key: 'endpoints.gpu.base_url',
  },
  {
    name: 'base_url with a path',
    yaml: 'endpoints:\n  gpu:\n    base_url: http://gpu-box:8080/v1\n',
    message:
      'models.yaml:3: endpoints.gpu.base_url: "http://gpu-box:8080/v1" has a path (/v1); give the server root, e.g. http://gpu-box:8080 — localagents adds /v1/messages itself',
    line: 3,
    key: 'endpoints.gpu.base_url',
  },
  {
    name: 'bad backend name',
    yaml: 'endpoints:\n  gpu:\n    base_url: http://gpu-box:8080\n    backend: sglang\n',
    message: 'models.yaml:4: endpoints.gpu.backend: expected one of "llama.cpp", "vllm", "ollama", "other", got string "sglang"',
    line: 4,
    key: 'endpoints.gpu.backend',
  },
  {
    name: 'backend name misspelt',
    yaml: 'endpoints:\n  gpu:\n    base_url: http://gpu-box:8080\n    backend: llamacpp\n',
    message: 'models.yaml:4: endpoints.gpu.backend: expected one of "llama.cpp", "vllm", "ollama", "other", got string "llamacpp" — did you mean "llama.cpp"?',
    line: 4,
    key: 'endpoints.gpu.backend',
  },
  {
    name: 'missing base_url points at the endpoint',
    yaml: 'endpoints:\n  gpu:\n    backend: vllm\n    max_jobs: 2\n',
    message: 'models.yaml:2: endpoints.gpu.base_url: required key is missing — expected an http:// or https:// URL such as http://gpu-box:8080',
    line: 2,
    key: 'endpoints.gpu.base_url',
  },
  {
    name: 'endpoint with nothing under it',
    yaml: 'endpoints:\n  gpu:\n',
    message: 'models.yaml:2: endpoints.gpu: expected a mapping with base_url, got an empty value',
    line: 2,
    key: 'endpoints.gpu',
  },
  {
    name: 'env values that are not strings',
    yaml: 'endpoints:\n  gpu:\n    base_url: http://gpu-box:8080\n    env:\n      CUDA_VISIBLE_DEVICES: 0\n      DEBUG: true\n',
    message: [
      'models.yaml:5: endpoints.gpu.env.CUDA_VISIBLE_DEVICES: env values must be strings (quote numbers and booleans); got number 0',
      'models.yaml:6: endpoints.gpu.env.DEBUG: env values must be strings (quote numbers and booleans); got boolean true',
    ].join('\n'),
    line: 5,
    key: 'endpoints.gpu.env.CUDA_VISIBLE_DEVICES',
  },
  {
    name: 'duplicate key',
    yaml: 'endpoints:\n  gpu:\n    base_url: http://gpu-box:8080\n    max_jobs: 2\n    base_url: http://other:8080\n',
    message: 'models.yaml:5: endpoints.gpu.base_url: duplicate key — each key may appear only once in a mapping',
    line: 5,
    key: 'endpoints.gpu.base_url',
  },
  {
    name: 'duplicate endpoint name',
    yaml: 'endpoints:\n  gpu:\n    base_url: http://a:8080\n  gpu:\n    base_url: http://b:8080\n',
    message: 'models.yaml:4: endpoints.gpu: duplicate key — each key may appear only once in a mapping',
    line: 4,
    key: 'endpoints.gpu',
  },
  {
    name: 'model naming an unknown endpoint',
    yaml: 'endpoints:\n  gpu-box:\n    base_url: http://gpu-box:8080\nmodels:\n  coder:\n    endpoint: gpubox\n',
    message: 'models.yaml:6: models.coder.endpoint: endpoint gpubox is not defined under endpoints — did you mean gpu-box?',
    line: 6,
    key: 'models.coder.endpoint',
  },
  {
    name: 'model naming an endpoint when none is defined',
    yaml: 'models:\n  coder:\n    endpoint: gpu\n',
    message: 'models.yaml:3: models.coder.endpoint: endpoint gpu is not defined under endpoints; no endpoints are defined',
    line: 3,
    key: 'models.coder.endpoint',
  },
  {
    name: 'empty defaults.model',
    yaml: 'defaults:\n  model: ""\n',
    message: 'models.yaml:2: defaults.model: must not be empty',
    line: 2,
    key: 'defaults.model',
  },
  {
    name: 'zero and negative timeouts',
    yaml: 'defaults:\n  timeout_s: 0\n  probe_timeout_s: -1\n  queue_grace_s: -5\n',
    message: [
      'models.yaml:2: defaults.timeout_s: expected a number from 1 to 86400, got 0',
      'models.yaml:3: defaults.probe_timeout_s: expected a number from 0.05 to 60, got -1',
      'models.yaml:4: defaults.queue_grace_s: expected a number from 0 to 86400, got -5',
    ].join('\n'),
    line: 2,
    key: 'defaults.timeout_s',
  },
  {
    name: 'failover set to a word it does not know, and a negative failover_after_s',
    yaml: 'defaults:\n  failover: true\n  failover_after_s: -1\n',
    message: [
      'models.yaml:2: defaults.failover: expected one of "off", "same_model", got boolean true',
      'models.yaml:3: defaults.failover_after_s: expected a number from 0 to 86400, got -1',
    ].join('\n'),
    line: 2,
    key: 'defaults.failover',
  },
  {
    name: 'failover misspelt',
    yaml: 'defaults:\n  failover: same-model\n',
    message: 'models.yaml:2: defaults.failover: expected one of "off", "same_model", got string "same-model" — did you mean "same_model"?',
    line: 2,
    key: 'defaults.failover',
  },
  {
    name: 'worktree_caches misspelt',
    yaml: 'defaults:\n  worktree_cache: [node_modules]\n',
    message: 'models.yaml:2: defaults.worktree_cache: unknown key — did you mean worktree_caches?',
    line: 2,
    key: 'defaults.worktree_cache',
  },
  {
    name: 'worktree_caches with a path instead of a name',
    yaml: 'defaults:\n  worktree_caches: [node_modules, build/out]\n',
    message: 'models.yaml:2: defaults.worktree_caches[1]: must be a file or folder name, not a path',
    line: 2,
    key: 'defaults.worktree_caches[1]',
  },
  {
    name: 'context below the minimum',
    yaml: 'models:\n  coder:\n    context: 512\n',
    message: 'models.yaml:3: models.coder.context: expected an integer from 1024 to 16777216, got 512',
    line: 3,
    key: 'models.coder.context',
  },
  {
    name: 'yes/no is a string in YAML 1.2, not a boolean',
    yaml: 'defaults:\n  allow_bypass_permissions: yes\n',
    message: 'models.yaml:2: defaults.allow_bypass_permissions: expected true or false, got string "yes"',
    line: 2,
    key: 'defaults.allow_bypass_permissions',
  },
  {
    name: 'a bad item in a list',
    yaml: 'defaults:\n  setting_sources:\n    - user\n    - global\n',
    message: 'models.yaml:4: defaults.setting_sources[1]: expected one of "user", "project", "local", got string "global" — did you mean "local"?',
    line: 4,
    key: 'defaults.setting_sources[1]',
  },
  {
    name: 'api_key and api_key_env both set',
    yaml: 'endpoints:\n  rack:\n    base_url: https://rack:8443\n    api_key: sk-123\n    api_key_env: RACK_KEY\n',
    message: 'models.yaml:5: endpoints.rack.api_key_env: api_key and api_key_env are both set; keep one (api_key_env keeps the key out of this file)',
    line: 5,
    key: 'endpoints.rack.api_key_env',
    env: { RACK_KEY: 'sk-123' },
  },
  {
    name: 'several problems, all reported in line order',
    yaml: 'defaults:\n  max_turns: lots\nendpoints:\n  gpu:\n    base_url: http://gpu-box:8080\n    max_jobs: 0\n',
    message: [
      'models.yaml:2: defaults.max_turns: expected an integer, got string "lots"',
      'models.yaml:6: endpoints.gpu.max_jobs: expected an integer from 1 to 256, got 0',
    ].join('\n'),
    line: 2,
    key: 'defaults.max_turns',
  },
  {
    name: 'two YAML documents in one file',
    yaml: 'endpoints:\n  gpu:\n    base_url: http://gpu-box:8080\n---\nmodels: {}\n',
    message: 'models.yaml:4: YAML syntax error: a second document starts here (---); a config file holds one',
    line: 4,
    key: undefined,
  },
  {
    name: 'a relative sandbox path (it would mean a different place for every job)',
    yaml: 'defaults:\n  sandbox:\n    allow_write: [build/cache]\n',
    message: 'models.yaml:3: defaults.sandbox.allow_write[0]: must be an absolute path or start with ~/',
    line: 3,
    key: 'defaults.sandbox.allow_write[0]',
  },
  {
    name: 'a URL where the sandbox wants a host, and a misspelt sandbox key',
    yaml: 'defaults:\n  sandbox:\n    allowed_domains: ["https://registry.npmjs.org/"]\n    enable: false\n',
    message: [
      'models.yaml:3: defaults.sandbox.allowed_domains[0]: must be a host name (registry.npmjs.org), a wildcard (*.pythonhosted.org) or an address, with an optional :port',
      'models.yaml:4: defaults.sandbox.enable: unknown key — did you mean enabled?',
    ].join('\n'),
    line: 3,
    key: 'defaults.sandbox.allowed_domains[0]',
  },
];

describe('malformed models.yaml', () => {
  it.each(CASES)('$name', async ({ yaml, message, line, key, env }) => {
    await tmp.write('models.yaml', yaml);
    const err = await loadConfig({ configPath: 'models.yaml', cwd: tmp.path, homeDir: tmp.path, env: env ?? {} }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    const configErr = err as ConfigError;
    expect(configErr.message).toBe(message);
    expect(configErr.file).toBe('models.yaml');
    expect(configErr.line).toBe(line);
    expect(configErr.key).toBe(key);
    expect(configErr.code).toBe('bad_config');
  });

  it('accepts an empty file as an empty registry', async () => {
    await tmp.write('models.yaml', '');
    const config = await loadConfig({ configPath: 'models.yaml', cwd: tmp.path, homeDir: tmp.path, env: {} });
    expect(config.endpoints).toEqual([]);
    expect(config.models).toEqual([]);
  });
});
