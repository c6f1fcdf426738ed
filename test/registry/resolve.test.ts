import { describe, expect, it } from 'vitest';
import type { EndpointProbe, ServedModel } from '../../src/backends/types.js';
import { configFileSchema, type Config } from '../../src/config/schema.js';
import { LocalAgentsError } from '../../src/errors.js';
import { resolveModel } from '../../src/registry/resolve.js';

function config(yaml: { endpoints?: Record<string, unknown>; models?: Record<string, unknown>; defaults?: Record<string, unknown> }): Config {
  const parsed = configFileSchema.parse(yaml);
  return {
    path: '/tmp/models.yaml',
    sidecarPath: '/tmp/models.local.yaml',
    endpoints: Object.entries(parsed.endpoints).map(([name, e]) => ({ name, ...e })),
    models: Object.entries(parsed.models).map(([name, m]) => ({ name, ...m })),
    defaults: parsed.defaults,
  };
}

function served(id: string, context = 131072, aliases: string[] = []): ServedModel {
  return { id, aliases, context, contextSource: 'llama.cpp /v1/models meta.n_ctx (per slot)', warnings: [] };
}

function probe(endpoint: string, state: EndpointProbe['state'], models: ServedModel[] = []): EndpointProbe {
  return {
    endpoint,
    baseUrl: 'http://127.0.0.1:1',
    backend: 'llama.cpp',
    host: undefined,
    notes: undefined,
    state,
    hostState: state === 'down' ? 'unknown' : 'up',
    reason: state === 'down' ? 'host is up, nothing listens on 127.0.0.1:1 (nothing started, or wrong port)' : 'up',
    models,
    slots: undefined,
    metrics: { enabled: false },
    server: {},
    warnings: [],
    elapsedMs: 1,
  };
}

const cfg = config({
  endpoints: { gpu1: { base_url: 'http://gpu1:8080', host: 'gpu1' }, gpu2: { base_url: 'http://gpu2:8000', backend: 'vllm', host: 'gpu2' } },
  models: {
    'qwen3.8-27b': { notes: 'default mid-size coder on llama.cpp; run with --reasoning on', host: 'gpu1', bring_up: 'llama-server -hf unsloth/Qwen3.8-27B-GGUF --jinja' },
    glm: { notes: 'big one', served_name: 'zai-org/GLM-*', endpoint: 'gpu2' },
    small: { notes: 'tiny', context: 65536 },
  },
});

const probes = [
  probe('gpu1', 'up', [served('unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL', 131072, ['qwen-coder'])]),
  probe('gpu2', 'up', [served('zai-org/GLM-5.3-FP8', 202752), served('qwen3.8-27b', 262144)]),
];

describe('resolveModel', () => {
  it('prefers an exact served id over fuzzy matches on other endpoints', () => {
    const r = resolveModel(cfg, probes, { model: 'qwen3.8-27b' });
    expect(r.matchedBy).toBe('exact');
    expect(r.candidates.map((c) => `${c.endpoint.name}/${c.model.id}`)).toEqual(['gpu2/qwen3.8-27b']);
  });

  it('matches an alias exactly', () => {
    const r = resolveModel(cfg, probes, { model: 'qwen-coder' });
    expect(r.candidates[0]?.model.id).toBe('unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL');
    expect(r.matchedBy).toBe('exact');
  });

  it('matches a glob case-insensitively', () => {
    const r = resolveModel(cfg, probes, { model: 'unsloth/qwen*' });
    expect(r.matchedBy).toBe('glob');
    expect(r.candidates[0]?.model.id).toBe('unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL');
  });

  it('matches fuzzily on folded alphanumerics', () => {
    const r = resolveModel(cfg, probes, { model: 'Qwen3.8 27B GGUF' });
    expect(r.matchedBy).toBe('fuzzy');
    expect(r.candidates[0]?.endpoint.name).toBe('gpu1');
  });

  it('restricts to the requested endpoint', () => {
    const r = resolveModel(cfg, probes, { model: 'qwen', endpoint: 'gpu1' });
    expect(r.candidates.map((c) => c.endpoint.name)).toEqual(['gpu1']);
  });

  it('uses a menu entry served_name glob and endpoint override', () => {
    const r = resolveModel(cfg, probes, { model: 'glm' });
    expect(r.menuEntry?.name).toBe('glm');
    expect(r.candidates.map((c) => `${c.endpoint.name}/${c.model.id}`)).toEqual(['gpu2/zai-org/GLM-5.3-FP8']);
  });

  it("treats a menu entry's endpoint as a preference: down there, another endpoint serving the model is used", () => {
    // glm prefers gpu2; gpu2 is down, gpu1 serves GLM: the original used gpu1, and so do we.
    const moved = [probe('gpu1', 'up', [served('zai-org/GLM-5.3-FP8', 202752)]), probe('gpu2', 'down')];
    const r = resolveModel(cfg, moved, { model: 'glm' });
    expect(r.candidates.map((c) => `${c.endpoint.name}/${c.model.id}`)).toEqual(['gpu1/zai-org/GLM-5.3-FP8']);
    expect(r.preferredEndpoint).toBe('gpu2');
    expect(r.preferredMissing).toMatch(/^preferred endpoint gpu2 is down \(host is up, nothing listens/);
    // Up but serving something else: the same.
    const other = [probe('gpu1', 'up', [served('zai-org/GLM-5.3-FP8')]), probe('gpu2', 'up', [served('qwen3.8-27b')])];
    expect(resolveModel(cfg, other, { model: 'glm' }).preferredMissing).toBe('preferred endpoint gpu2 does not serve glm');
  });

  it("keeps the endpoint argument a hard pin, even against a menu entry's preference", () => {
    const both = [probe('gpu1', 'up', [served('zai-org/GLM-5.3-FP8')]), probe('gpu2', 'down')];
    expect(() => resolveModel(cfg, both, { model: 'glm', endpoint: 'gpu2' })).toThrow(/glm is not running anywhere/);
    const r = resolveModel(cfg, both, { model: 'glm', endpoint: 'gpu1' });
    expect(r.pinnedEndpoint).toBe('gpu1');
    expect(r.preferredEndpoint).toBeUndefined();
  });

  it('falls back to the menu context when the probe cannot tell', () => {
    const noCtx = [probe('gpu1', 'up', [{ ...served('org/small-model-7b'), context: undefined, contextSource: 'unknown' }])];
    const r = resolveModel(cfg, noCtx, { model: 'small' });
    expect(r.candidates[0]?.context).toBe(65536);
    expect(r.candidates[0]?.contextSource).toBe('models.yaml context');
  });

  it('uses defaults.model when no name is given', () => {
    const withDefault = { ...cfg, defaults: { ...cfg.defaults, model: 'glm' } };
    const r = resolveModel(withDefault, probes, {});
    expect(r.matchedBy).toBe('default');
    expect(r.candidates[0]?.model.id).toBe('zai-org/GLM-5.3-FP8');
  });

  it('takes the first live endpoint in config order when nothing is named', () => {
    const r = resolveModel(cfg, [probe('gpu1', 'down'), probes[1]!], {});
    expect(r.matchedBy).toBe('first-live');
    expect(r.candidates[0]?.endpoint.name).toBe('gpu2');
  });

  it('returns model_unavailable with the notes, host, start command and what is served now', () => {
    const down = [probe('gpu1', 'down'), probe('gpu2', 'up', [served('zai-org/GLM-5.3-FP8')])];
    let error: unknown;
    try {
      resolveModel(cfg, down, { model: 'qwen3.8-27b' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(LocalAgentsError);
    const e = error as LocalAgentsError;
    expect(e.code).toBe('model_unavailable');
    expect(e.message).toBe(
      'qwen3.8-27b is not running anywhere. Ask the user to start it on gpu1. ' +
        'Note: default mid-size coder on llama.cpp; run with --reasoning on ' +
        'Start command: llama-server -hf unsloth/Qwen3.8-27B-GGUF --jinja ' +
        'Serving now: gpu1 → down (host is up, nothing listens on 127.0.0.1:1 (nothing started, or wrong port)); gpu2 → zai-org/GLM-5.3-FP8.',
    );
    expect(e.details).toMatchObject({ requested: 'qwen3.8-27b', host: 'gpu1' });
    expect(e.details.bring_up).toContain('llama-server');
    expect(e.details.serving_now).toEqual([
      { endpoint: 'gpu1', state: 'down', models: [], reason: 'host is up, nothing listens on 127.0.0.1:1 (nothing started, or wrong port)' },
      { endpoint: 'gpu2', state: 'up', models: ['zai-org/GLM-5.3-FP8'], reason: 'up' },
    ]);
  });

  it('rejects an unknown endpoint naming the allowed ones', () => {
    expect(() => resolveModel(cfg, probes, { model: 'glm', endpoint: 'gpu9' })).toThrow(
      'unknown endpoint "gpu9"; configured endpoints: gpu1, gpu2',
    );
  });

  it('says a model is loading when its endpoint is loading', () => {
    expect(() => resolveModel(cfg, [probe('gpu1', 'loading'), probe('gpu2', 'down')], { model: 'qwen3.8-27b' })).toThrow(
      /Still loading: gpu1/,
    );
  });
});

describe('vision of a candidate', () => {
  const withVision = (vision: boolean | undefined): ServedModel => ({ ...served('m'), vision });
  const visionOf = (endpointVision: boolean | undefined, probed: boolean | undefined): boolean | undefined => {
    const cfg = config({ endpoints: { gpu: { base_url: 'http://127.0.0.1:1', ...(endpointVision === undefined ? {} : { vision: endpointVision }) } } });
    return resolveModel(cfg, [probe('gpu', 'up', [withVision(probed)])], { model: 'm' }).candidates[0]?.vision;
  };

  it('takes what the server says, and assumes text only when it says nothing', () => {
    expect(visionOf(undefined, true)).toBe(true);
    expect(visionOf(undefined, false)).toBe(false);
    expect(visionOf(undefined, undefined)).toBe(false);
  });

  it("takes models.yaml's endpoint vision where the server says nothing; false always wins", () => {
    expect(visionOf(true, undefined)).toBe(true);
    expect(visionOf(true, false)).toBe(false);
    expect(visionOf(false, true)).toBe(false);
  });

  it('refuses a vision value that is not a boolean, naming the key', () => {
    const parsed = configFileSchema.safeParse({ endpoints: { gpu: { base_url: 'http://127.0.0.1:1', vision: 'yes' } } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['endpoints', 'gpu', 'vision']);
  });
});
