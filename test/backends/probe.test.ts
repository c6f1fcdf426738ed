import { afterEach, describe, expect, it } from 'vitest';
import { createProber, type Prober } from '../../src/backends/probe.js';
import type { Endpoint } from '../../src/config/schema.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { deadPort, startSilentServer, type SilentServer } from '../helpers/silent-server.js';
import { until } from '../helpers/processes.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';

const cleanups = cleanupsAfterEach();

async function sim(opts: Parameters<typeof startSimulator>[0]): Promise<Simulator> {
  const s = await startSimulator(opts);
  cleanups.push(() => s.close());
  return s;
}

function prober(): Prober {
  const p = createProber();
  cleanups.push(() => p.close());
  return p;
}

function endpoint(url: string, extra: Partial<Endpoint> = {}): Endpoint {
  return { name: 'gpu', base_url: url, backend: 'llama.cpp', ...extra };
}

describe('probing llama.cpp', () => {
  it('reports served ids, per-slot context, slots and metrics of a live server', async () => {
    const s = await sim({ flavor: 'llama.cpp', slots: 2, context: 65536, modelId: 'unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL' });
    const p = await prober().probeEndpoint(endpoint(s.url), 2.5);
    expect(p).toMatchObject({ state: 'up', hostState: 'up', slots: { total: 2, busy: 0, free: 2, source: '/slots' }, metrics: { enabled: true } });
    expect(p.models).toEqual([
      expect.objectContaining({ id: 'unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL', context: 65536, contextSource: 'llama.cpp /v1/models meta.n_ctx (per slot)' }),
    ]);
    expect(p.models[0]?.warnings[0]).toContain('context 65536 < 128k — Claude Code sessions will compact constantly');
  });

  it('counts busy slots while a request is generating', async () => {
    const s = await sim({ flavor: 'llama.cpp', slots: 2, script: [{ text: 'slow', delayMs: 1500 }] });
    const pending = fetch(`${s.url}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify({ model: 'x', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(await until(() => s.stats.inFlight === 1, 10_000)).toBe(true);
    const p = await prober().probeEndpoint(endpoint(s.url), 2.5);
    expect(p.slots).toEqual({ total: 2, busy: 1, free: 1, source: '/slots' });
    await (await pending).text();
  });

  it('says loading, not down, while the model loads', async () => {
    const s = await sim({ flavor: 'llama.cpp', loadingMs: 5000 });
    const p = await prober().probeEndpoint(endpoint(s.url), 2.5);
    expect(p.state).toBe('loading');
    expect(p.reason).toBe('llama-server is up and loading its model (Loading model); jobs will wait for it');
  });

  it('says an API key is needed, and when ours is wrong', async () => {
    const s = await sim({ flavor: 'llama.cpp', apiKey: 'k123' });
    const without = await prober().probeEndpoint(endpoint(s.url), 2.5);
    expect(without.state).toBe('needs_api_key');
    expect(without.reason).toContain('set api_key_env (or api_key)');
    const wrong = await prober().probeEndpoint(endpoint(s.url, { apiKey: 'nope' }), 2.5);
    expect(wrong.reason).toContain('rejected our API key');
    const right = await prober().probeEndpoint(endpoint(s.url, { apiKey: 'k123' }), 2.5);
    expect(right.state).toBe('up');
    const unset = await prober().probeEndpoint(endpoint(s.url, { apiKeyProblem: 'models.yaml:4: endpoints.gpu.api_key_env: environment variable GPU_KEY is not set' }), 2.5);
    expect(unset.reason).toBe('the server needs an API key (HTTP 401), and models.yaml:4: endpoints.gpu.api_key_env: environment variable GPU_KEY is not set');
  });

  it('warns when metrics and slots are off', async () => {
    const s = await sim({ flavor: 'llama.cpp', metrics: false, slotsEndpoint: false, slots: 3 });
    const p = await prober().probeEndpoint(endpoint(s.url), 2.5);
    expect(p.slots).toEqual({ total: 3, busy: 0, free: 3, source: '/props' });
    expect(p.warnings).toContain('metrics are off: start llama-server with --metrics for load and cache statistics per job');
    expect(p.warnings).toContain('/slots is off: start llama-server with --slots to see busy/free slots');
  });
});

describe('probing vLLM', () => {
  it('reports max_model_len and load from /metrics', async () => {
    const s = await sim({ flavor: 'vllm', modelId: 'qwen3.8-27b', context: 131072 });
    const p = await prober().probeEndpoint(endpoint(s.url, { backend: 'vllm' }), 2.5);
    expect(p.state).toBe('up');
    expect(p.models).toEqual([expect.objectContaining({ id: 'qwen3.8-27b', context: 131072, contextSource: 'vllm max_model_len', warnings: [] })]);
    expect(p.metrics).toMatchObject({ enabled: true, requestsRunning: 0, requestsWaiting: 0, kvCacheUsage: 0 });
  });

  it('needs a Bearer key when the server has one', async () => {
    const s = await sim({ flavor: 'vllm', apiKey: 'vk' });
    expect((await prober().probeEndpoint(endpoint(s.url, { backend: 'vllm' }), 2.5)).state).toBe('needs_api_key');
    expect((await prober().probeEndpoint(endpoint(s.url, { backend: 'vllm', apiKey: 'vk' }), 2.5)).state).toBe('up');
  });
});

describe('probing dead endpoints', () => {
  it('tells a refused port from a down host', async () => {
    const port = await deadPort();
    const p = await prober().probeEndpoint(endpoint(`http://127.0.0.1:${port}`), 2.5);
    expect(p).toMatchObject({ state: 'down', hostState: 'up', reason: `host is up, nothing listens on 127.0.0.1:${port} (nothing started, or wrong port)` });
  });

  let silent: SilentServer | undefined;
  afterEach(async () => {
    await silent?.close();
    silent = undefined;
  });

  it('gives up on a server that never answers within the probe timeout', async () => {
    silent = await startSilentServer();
    // The server never answers nor closes: the probe comes back only because it gave up (else the test's time limit ends it).
    const p = await prober().probeEndpoint(endpoint(`http://127.0.0.1:${silent.port}`), 0.3);
    expect(p.state).toBe('down');
    expect(p.reason).toBe(`something accepted the connection on 127.0.0.1:${silent.port} but sent no answer within 0.3 s (server hung or busy)`);
  });
});

describe('probing Ollama', () => {
  it('lists installed models, marks the loaded one and takes its window from /api/ps', async () => {
    const s = await sim({ flavor: 'ollama', modelId: 'qwen3-coder:30b', context: 131072 });
    const p = await prober().probeEndpoint(endpoint(s.url, { backend: 'ollama' }), 2.5);
    expect(p).toMatchObject({ state: 'up', backend: 'ollama', reason: 'up, serving qwen3-coder:30b', warnings: [] });
    expect(p.models).toEqual([
      { id: 'qwen3-coder:30b', aliases: [], vision: false, context: 131072, contextSource: 'ollama /api/ps context_length', routerStatus: 'loaded', warnings: [], fingerprint: expect.stringMatching(/^digest [0-9a-f]{64}$/) as string },
    ]);
  });

  it("warns about Ollama's small default window and says how to raise it", async () => {
    const s = await sim({ flavor: 'ollama', modelId: 'qwen3-coder:30b', context: 4096 });
    const p = await prober().probeEndpoint(endpoint(s.url, { backend: 'ollama' }), 2.5);
    expect(p.models[0]?.warnings).toEqual([
      'qwen3-coder:30b: context 4096 < 128k — Claude Code sessions will compact constantly (fine for one-shot completions); start the server with OLLAMA_CONTEXT_LENGTH=131072 ollama serve (or set num_ctx in a Modelfile)',
    ]);
  });

  it('reports an installed model that is not loaded with an unknown window, then its real one once a request loaded it', async () => {
    const s = await sim({ flavor: 'ollama', modelId: 'qwen3-coder:30b', context: 32768, ollamaLoaded: false, script: [{ text: 'hi' }] });
    const before = await prober().probeEndpoint(endpoint(s.url, { backend: 'ollama' }), 2.5);
    expect(before.models[0]).toMatchObject({ context: undefined, contextSource: 'unknown', routerStatus: 'unloaded' });
    expect(before.models[0]?.warnings).toEqual([
      "qwen3-coder:30b: not loaded; its window is known once a request loads it (the model's num_ctx or OLLAMA_CONTEXT_LENGTH, else Ollama's default: 4k below 24 GiB of VRAM), and Ollama silently drops the oldest messages of a longer prompt; start the server with OLLAMA_CONTEXT_LENGTH=131072 ollama serve (or set num_ctx in a Modelfile)",
    ]);
    const res = await fetch(`${s.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'qwen3-coder:30b', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }) });
    expect(res.status).toBe(200);
    const after = await prober().probeEndpoint(endpoint(s.url, { backend: 'ollama' }), 2.5);
    expect(after.models[0]).toMatchObject({ context: 32768, routerStatus: 'loaded' });
  });

  it('says a llama.cpp server configured as ollama is not an Ollama server', async () => {
    const s = await sim({ flavor: 'llama.cpp' });
    const p = await prober().probeEndpoint(endpoint(s.url, { backend: 'ollama' }), 2.5);
    expect(p.state).toBe('error');
    expect(p.reason).toMatch(/^GET \/api\/tags answered HTTP 404 without a model list; is this an Ollama server\?/);
  });
});
