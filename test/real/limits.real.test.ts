/**
 * What a user meets at a real llama-server's limits, through the built localagents and the real Claude Code:
 * a prompt over the slot's context, a server with --api-key, and a random-weights model whose long output
 * breaks the server's output parser inside an HTTP 200 stream.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ok } from '../e2e/harness.js';
import { until } from '../helpers/processes.js';
import type { LlamaServer } from './llama-server.js';
import { startTestServer, type TestServerOptions } from './server-for-test.js';
import { startLocalagents, type Localagents } from './mcp.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function server(options: TestServerOptions): Promise<LlamaServer> {
  const s = await startTestServer(options);
  cleanups.push(() => s.close());
  return s;
}

async function localagents(...args: Parameters<typeof startLocalagents>): Promise<Localagents> {
  const la = await startLocalagents(...args);
  cleanups.push(() => la.close());
  return la;
}

describe('a real llama-server at its limits', () => {
  it('a prompt over the slot context fails the job with "prompt is too long: N tokens > M maximum", the real numbers', async () => {
    const s = await server({ model: 'eos', parallel: 1, slotContext: 8192 });
    const la = await localagents({ gpu: { url: s.url } });
    const job = await la.finish((await la.start({ task: 'Say hello.' })).id);
    expect(job.status).toBe('failed');
    const first = la.requests(job.id).find((r) => r.path === '/v1/messages');
    // The server's own words: "request (N tokens) exceeds the available context size (8192 tokens)…".
    const real = /request \((\d+) tokens\) exceeds the available context size \(8192 tokens\)/.exec(first?.original_error ?? '');
    expect(real, JSON.stringify(first)).not.toBeNull();
    const n = Number(real?.[1]);
    expect(n).toBeGreaterThan(8192);
    expect(first).toMatchObject({ status: 400, error: `prompt is too long: ${n} tokens > 8191 maximum` });
    expect(job.error).toContain(`prompt is too long: ${n} tokens > 8191 maximum`);
  });

  it('--api-key: 401 without the key (the endpoint says how to fix it), a job succeeds with api_key_env', async () => {
    const s = await server({ model: 'eos', parallel: 1, slotContext: 65536, apiKey: 'k-real-test' });
    const noKey = await fetch(`${s.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toEqual({ error: { message: 'Invalid API Key', type: 'authentication_error', code: 401 } });

    const without = await localagents({ gpu: { url: s.url } });
    const listing = ok(await without.mcp.call('list_models'));
    expect((listing.endpoints as Array<{ reason: string }>)[0]?.reason).toContain('the server needs an API key (HTTP 401)');

    const withKey = await localagents({ gpu: { url: s.url, apiKeyEnv: 'REAL_TEST_KEY' } }, { REAL_TEST_KEY: 'k-real-test' });
    const job = await withKey.finish((await withKey.start({ task: 'Say hello.' })).id);
    expect(job.status).toBe('succeeded');
  });

  it('long random output: the stream error the server sends inside HTTP 200 is recorded in requests.jsonl', async () => {
    const s = await server({ model: 'random', parallel: 1, slotContext: 65536, nPredict: 512 });
    const la = await localagents({ gpu: { url: s.url } });
    const started = await la.start({ task: 'Write a long story.' });
    const errorLine = (): boolean => {
      try {
        return la.requests(started.id).some((r) => r.status === 200 && r.usage?.error !== undefined);
      } catch {
        return false; // requests.jsonl not written yet
      }
    };
    expect(await until(errorLine, 480_000, 1000)).toBe(true);
    const line = la.requests(started.id).find((r) => r.usage?.error !== undefined);
    expect(line?.stream).toBe(true);
    expect(line?.usage?.error?.message).toMatch(/does not match the expected|Failed to parse input/);
    ok(await la.mcp.call('cancel_job', { job_id: started.id }));
  });
});
