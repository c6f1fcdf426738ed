/**
 * Probing a router-mode llama-server (docs/backends.md §3.1): each model's state and window without loading
 * anything, the loaded ones read from their own instance, the router's max_instances.
 */
import { describe, expect, it } from 'vitest';
import { createProber } from '../../src/backends/probe.js';
import { windowFromArgs } from '../../src/backends/router-args.js';
import type { EndpointProbe } from '../../src/backends/types.js';
import { cleanupsAfterEach, simulatorFor } from '../helpers/cleanups.js';

const cleanups = cleanupsAfterEach();

async function probe(url: string): Promise<EndpointProbe> {
  const prober = createProber();
  cleanups.push(() => prober.close());
  return prober.probeEndpoint({ name: 'gpu-box', base_url: url, backend: 'llama.cpp' }, 2.5);
}

describe('the window a router will give a model, from its arguments', () => {
  it.each([
    [['llama-server', '--ctx-size', '32768', '--parallel', '1'], { context: 32768, slots: 1 }],
    [['llama-server', '--ctx-size', '65536', '--parallel', '2'], { context: 32768, slots: 2 }],
    [['llama-server', '--ctx-size', '65536', '--parallel', '2', '--kv-unified'], { context: 65536, slots: 2 }],
    // automatic --parallel: 4 slots on a unified cache, each able to use all of -c
    [['llama-server', '--ctx-size', '65536'], { context: 65536, slots: 4 }],
    [['llama-server', '--ctx-size', '65536', '--parallel', '-1'], { context: 65536, slots: 4 }],
    // rounded up to 256, per slot too (src/llama-context.cpp)
    [['llama-server', '--ctx-size', '32768', '--parallel', '3'], { context: 11008, slots: 3 }],
    [['llama-server', '--ctx-size', '1000', '--parallel', '1'], { context: 1024, slots: 1 }],
    // the last occurrence wins; short names too
    [['llama-server', '-c', '8192', '--ctx-size', '16384', '-np', '2', '--no-kv-unified'], { context: 8192, slots: 2 }],
  ])('%j → %j', (args, window) => {
    expect(windowFromArgs(args)).toEqual(window);
  });

  it('no --ctx-size, or 0: the model file decides, unknown until it is loaded', () => {
    expect(windowFromArgs(['llama-server', '--parallel', '1'])).toBeUndefined();
    expect(windowFromArgs(['llama-server', '--ctx-size', '0'])).toBeUndefined();
    expect(windowFromArgs(['llama-server', '--ctx-size', 'lots'])).toBeUndefined();
  });
});

describe('probing a router', () => {
  const models = [
    { id: 'qwen-small', loaded: true },
    { id: 'devstral', ctxSize: 65536, parallel: 2 },
    { id: 'broken' },
  ];

  it('lists every model with its state and window, loading nothing', async () => {
    const s = await simulatorFor(cleanups, { flavor: 'llama.cpp', router: { models, modelsMax: 2, ctxSize: 32768, parallel: 1 } });
    const p = await probe(s.url);
    expect(p.server).toMatchObject({ router: true, maxInstances: 2 });
    expect(p.models.map((m) => [m.id, m.routerStatus, m.context, m.contextSource, m.router?.slots?.total, m.router?.slots?.source])).toEqual([
      ['qwen-small', 'loaded', 32768, 'llama.cpp /v1/models meta.n_ctx (per slot)', 1, '/slots'],
      ['devstral', 'unloaded', 32768, "llama.cpp router's arguments for the model (--ctx-size / --parallel)", 2, 'router arguments'],
      ['broken', 'unloaded', 32768, "llama.cpp router's arguments for the model (--ctx-size / --parallel)", 1, 'router arguments'],
    ]);
    // The router's slots are its loaded instances'.
    expect(p.slots).toMatchObject({ total: 1, busy: 0 });
    expect(s.routerEvents).toEqual([]);
    // Only the loaded model was asked anything by name, and never with autoload.
    const named = s.requests.filter((r) => r.url.includes('model='));
    expect(named.length).toBeGreaterThan(0);
    expect(named.every((r) => r.url.includes('model=qwen-small') && r.url.includes('autoload=false'))).toBe(true);
  });

  it('a model whose last load failed says so, with the exit code', async () => {
    const s = await simulatorFor(cleanups, { flavor: 'llama.cpp', router: { models: [{ id: 'broken', broken: true }], ctxSize: 32768, parallel: 1 } });
    const res = await fetch(`${s.url}/v1/messages`, { method: 'POST', body: JSON.stringify({ model: 'broken', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }) });
    expect([res.status, await res.json()]).toEqual([500, { error: { code: 500, message: 'model name=broken failed to load', type: 'server_error' } }]);
    const p = await probe(s.url);
    expect(p.models[0]).toMatchObject({ routerStatus: 'unloaded', router: { failedExitCode: 1 } });
  });
});
