/**
 * Which weights a served id runs on, as each server reports them (docs/backends.md §3, §5, §7): what a running
 * job compares when its endpoint comes back, so another file under the same id is another model.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createProber } from '../../src/backends/probe.js';
import type { EndpointProbe } from '../../src/backends/types.js';
import type { Endpoint } from '../../src/config/schema.js';
import { fixturePath, startSimulator, type SimulatorOptions } from '../sim/index.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';

const cleanups = cleanupsAfterEach();

async function probeOf(base_url: string, backend: Endpoint['backend']): Promise<EndpointProbe> {
  const prober = createProber();
  cleanups.push(() => prober.close());
  return prober.probeEndpoint({ name: 'gpu', base_url, backend }, 2.5);
}

async function sim(options: SimulatorOptions): Promise<string> {
  const s = await startSimulator(options);
  cleanups.push(() => s.close());
  return s.url;
}

/** The captured August 2026 llama-server's own /v1/models and /props bodies (test/fixtures/llama-server). */
async function capturedLlamaServer(): Promise<string> {
  const bodies: Record<string, string> = {
    '/v1/models': readFileSync(fixturePath('llama-server', 'v1-models-1slot.json'), 'utf8'),
    '/props': readFileSync(fixturePath('llama-server', 'props-1slot-131072.json'), 'utf8'),
  };
  const server: Server = createServer((req, res) => {
    const body = bodies[req.url ?? ''];
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(body ?? '{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the weights behind a served id', () => {
  it('llama.cpp, from the captured bodies: the file from /props model_path, the fingerprint from /v1/models meta', async () => {
    const p = await probeOf(await capturedLlamaServer(), 'llama.cpp');
    expect(p.models).toEqual([expect.objectContaining({ id: 'tiny-qwen3.8-27b', file: '/models/tiny-qwen.gguf', fingerprint: '4178240 parameters, 16712960 bytes' })]);
  });

  it('llama.cpp simulated: another --model under the same --alias is another file', async () => {
    const first = await probeOf(await sim({ flavor: 'llama.cpp' }), 'llama.cpp');
    const other = await probeOf(await sim({ flavor: 'llama.cpp', modelFile: '/models/Other-Model-8B-Q8_0.gguf' }), 'llama.cpp');
    expect(first.models[0]).toMatchObject({ id: 'unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL', file: '/models/unsloth_Qwen3.8-27B-GGUF_UD-Q4_K_XL.gguf' });
    expect(other.models[0]).toMatchObject({ id: first.models[0]?.id, file: '/models/Other-Model-8B-Q8_0.gguf' });
  });

  it('llama.cpp router mode: no file (its /props model_path is "none"; each model runs in a child), the id decides', async () => {
    const p = await probeOf(await sim({ flavor: 'llama.cpp', routerModels: ['a-model', 'b-model'] }), 'llama.cpp');
    expect(p.models.map((m) => m.file)).toEqual([undefined, undefined]);
  });

  it('vLLM: the file is /v1/models root (its --model)', async () => {
    const p = await probeOf(await sim({ flavor: 'vllm', modelFile: '/srv/models/Qwen3.8-27B-AWQ' }), 'vllm');
    expect(p.models[0]).toMatchObject({ id: 'qwen3.8-27b', file: '/srv/models/Qwen3.8-27B-AWQ' });
    expect(p.models[0]?.fingerprint).toBeUndefined();
  });

  it('Ollama: no file; the fingerprint is the /api/tags digest', async () => {
    const p = await probeOf(await sim({ flavor: 'ollama' }), 'ollama');
    expect(p.models[0]).toMatchObject({ id: 'qwen3.8:27b', fingerprint: 'digest a2af6cc3eb7fa8be8504abaf9b04e88f17a119ec3f04a3addf55f92841195f5a' });
    expect(p.models[0]?.file).toBeUndefined();
  });
});
