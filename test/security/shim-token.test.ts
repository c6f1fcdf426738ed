/**
 * The shim's per-job token is the only thing between a local process and the
 * user's backend (and its API key): it carries at least 128 random bits, and a
 * request with a wrong, stale or missing token never reaches the backend.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { nullRequestLog } from '../../src/shim/request-log/request-log.js';
import { createShimServer, type ShimServer } from '../../src/shim/server.js';
import { startSimulator, type Simulator } from '../sim/index.js';

const body = JSON.stringify({ model: 'x', max_tokens: 10, stream: false, messages: [{ role: 'user', content: 'hi' }] });

/** POST with the path sent exactly as given (fetch would normalise `..` away). */
function rawPost(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(text) as unknown }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('shim tokens', () => {
  let sim: Simulator;
  let shim: ShimServer;
  let liveUrl: string;

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp', apiKey: 'backend-key', script: [{ text: 'hello' }] });
    shim = createShimServer(silentLogger);
    const spec = { jobId: 'j', endpoint: { name: 'gpu', base_url: sim.url, backend: 'llama.cpp' as const, apiKey: 'backend-key' }, servedModel: sim.modelId, context: undefined, log: nullRequestLog };
    liveUrl = (await shim.open(spec)).baseUrl;
  });
  afterAll(async () => {
    await shim?.close();
    await sim?.close();
  });

  it('every token carries at least 128 bits and no two are alike', async () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const route = await shim.open({ jobId: `j${i}`, endpoint: { name: 'gpu', base_url: sim.url, backend: 'llama.cpp' }, servedModel: 'm', context: undefined, log: nullRequestLog });
      const token = new URL(route.baseUrl).pathname.split('/')[2]!;
      route.close();
      expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(Buffer.from(token, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
      tokens.add(token);
    }
    expect(tokens.size).toBe(2000);
  });

  const token = (): string => new URL(liveUrl).pathname.split('/')[2]!;
  const WRONG: ReadonlyArray<[string, () => string]> = [
    ['one character changed', () => `/job/${token().slice(0, -1)}${token().endsWith('A') ? 'B' : 'A'}/v1/messages`],
    ['token with a suffix', () => `/job/${token()}x/v1/messages`],
    ['token prefix only', () => `/job/${token().slice(0, 16)}/v1/messages`],
    ['no token', () => '/job//v1/messages'],
    ['no /job prefix', () => '/v1/messages'],
    ['dot-dot after a wrong token', () => `/job/wrong/../${token()}/v1/messages`],
    ['dot-dot after the right token', () => `/job/${token()}x/../../v1/messages`],
    ['token in the query instead of the path', () => `/v1/messages?token=${token()}`],
    ['the backend key as the token', () => '/job/backend-key/v1/messages'],
  ];
  for (const [name, path] of WRONG) {
    it(`${name}: 404 not_found_error, x-should-retry false, nothing reaches the backend`, async () => {
      const before = sim.requests.length;
      // Even the backend's real key in the headers does not help.
      const res = await rawPost(shim.port()!, path(), { authorization: 'Bearer backend-key', 'x-api-key': 'backend-key' });
      expect(res.status).toBe(404);
      expect(res.headers['x-should-retry']).toBe('false');
      expect(res.json).toEqual({ type: 'error', error: { type: 'not_found_error', message: 'unknown or finished localagents job: this URL is valid only while its job runs' } });
      expect(sim.requests.length).toBe(before);
    });
  }

  it('a closed route\'s token is dead at once', async () => {
    const route = await shim.open({ jobId: 'gone', endpoint: { name: 'gpu', base_url: sim.url, backend: 'llama.cpp' }, servedModel: sim.modelId, context: undefined, log: nullRequestLog });
    route.close();
    const before = sim.requests.length;
    const res = await fetch(`${route.baseUrl}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(404);
    expect(sim.requests.length).toBe(before);
  });

  it('the right token gets through, with the endpoint\'s key, not the caller\'s credentials', async () => {
    const before = sim.requests.length;
    const res = await fetch(`${liveUrl}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'localagents', authorization: 'Bearer stolen' }, body });
    expect(res.status).toBe(200);
    const seen = sim.requests.slice(before);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers).toMatchObject({ authorization: 'Bearer backend-key', 'x-api-key': 'backend-key' });
  });
});
