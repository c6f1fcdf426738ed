/** What the probe learns of an endpoint's input modalities, from what each server really reports. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createProber } from '../../src/backends/probe.js';
import type { Endpoint } from '../../src/config/schema.js';
import type { SimulatorOptions } from '../sim/index.js';
import { cleanupsAfterEach, simulatorFor } from '../helpers/cleanups.js';

const cleanups = cleanupsAfterEach();

async function probeOf(endpoint: Omit<Endpoint, 'name'>): Promise<Awaited<ReturnType<ReturnType<typeof createProber>['probeEndpoint']>>> {
  const prober = createProber();
  cleanups.push(() => prober.close());
  return prober.probeEndpoint({ name: 'gpu', ...endpoint }, 2.5);
}

async function sim(options: SimulatorOptions): Promise<string> {
  return (await simulatorFor(cleanups, options)).url;
}

/** A llama-server from before multimodal support: /props has no `modalities`. */
async function oldLlamaServer(): Promise<string> {
  const server: Server = createServer((req, res) => {
    const body = req.url === '/v1/models' ? { object: 'list', data: [{ id: 'old.gguf', meta: { n_ctx: 131072 } }] } : req.url === '/props' ? { total_slots: 1, default_generation_settings: { n_ctx: 131072 } } : undefined;
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: { code: 404, message: 'File Not Found', type: 'not_found_error' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An Ollama with one model, gemma:2b, whose /api/show answers `show()` (404 when undefined). */
async function fakeOllama(show: () => unknown): Promise<string> {
  const server: Server = createServer((req, res) => {
    const body = req.url === '/api/tags' ? { models: [{ name: 'gemma:2b', model: 'gemma:2b' }] } : req.url === '/api/ps' ? { models: [] } : req.url === '/api/show' && req.method === 'POST' ? show() : undefined;
    req.resume();
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': body === undefined ? 'text/plain' : 'application/json' });
    res.end(body === undefined ? '404 page not found' : JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('input modalities', () => {
  it('llama.cpp: /props modalities.vision, false without an mmproj and true with one', async () => {
    for (const llamaBuild of ['b9553', 'aug2026', 'sep2026'] as const) {
      const text = await probeOf({ base_url: await sim({ flavor: 'llama.cpp', llamaBuild }), backend: 'llama.cpp' });
      expect(text.models[0]?.vision).toBe(false);
      const vision = await probeOf({ base_url: await sim({ flavor: 'llama.cpp', llamaBuild, vision: true }), backend: 'llama.cpp' });
      expect(vision.models[0]?.vision).toBe(true);
    }
  });

  it("llama.cpp router: each model's /v1/models input_modalities", async () => {
    const p = await probeOf({ base_url: await sim({ flavor: 'llama.cpp', routerModels: ['a', 'b'], vision: true }), backend: 'llama.cpp' });
    expect(p.models.map((m) => [m.id, m.vision])).toEqual([['a', true], ['b', true]]);
  });

  it("Ollama: /api/show capabilities, vision when the model lists it, a warning when it lists no tools", async () => {
    const text = await probeOf({ base_url: await sim({ flavor: 'ollama' }), backend: 'ollama' });
    expect(text.models[0]?.vision).toBe(false);
    expect(text.models[0]?.warnings.join('\n')).not.toContain('does not support tools');
    const vision = await probeOf({ base_url: await sim({ flavor: 'ollama', vision: true }), backend: 'ollama' });
    expect(vision.models[0]?.vision).toBe(true);
  });

  it('Ollama before capabilities (no field) or without /api/show: unknown; a model without tools: a warning', async () => {
    const old = await probeOf({ base_url: await fakeOllama(() => ({ license: '', details: {} })), backend: 'ollama' });
    expect(old.state).toBe('up');
    expect(old.models[0]?.vision).toBeUndefined();
    const gone = await probeOf({ base_url: await fakeOllama(() => undefined), backend: 'ollama' });
    expect(gone.models[0]?.vision).toBeUndefined();
    const noTools = await probeOf({ base_url: await fakeOllama(() => ({ capabilities: ['completion', 'vision'] })), backend: 'ollama' });
    expect(noTools.models[0]?.vision).toBe(true);
    expect(noTools.models[0]?.warnings).toContain('gemma:2b: Ollama says this model does not support tools, which every Claude Code session needs; pick a model whose /api/show capabilities list "tools"');
  });

  it('unknown where the server does not say: an older llama-server, vLLM', async () => {
    const old = await probeOf({ base_url: await oldLlamaServer(), backend: 'llama.cpp' });
    expect(old.state).toBe('up');
    expect(old.models[0]?.vision).toBeUndefined();
    const vllm = await probeOf({ base_url: await sim({ flavor: 'vllm' }), backend: 'vllm' });
    expect(vllm.models[0]?.vision).toBeUndefined();
  });
});
