/**
 * Fidelity of the simulated llama-server's informational endpoints, auth and
 * loading phase against the captured real responses in fixtures/llama-server.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../sim/index.js';
import { readHttpFixture, readJsonFixture, request, shapeOf, simpleBody, simulatorPerTest } from './fixture-io.js';

const start = simulatorPerTest({ flavor: 'llama.cpp' });

const TWO_SLOTS = { slots: 2, context: 4096 } as const;

describe('llama.cpp informational endpoints', () => {
  it('/health answers like the captured server', async () => {
    const s = await start();
    const r = await request(s.url, '/health');
    expect(r.status).toBe(200);
    expect(r.text).toBe(readFileSync(fixturePath('llama-server', 'health.json'), 'utf8'));
  });

  it.each([
    ['v1-models-1slot.json', {}, 131072],
    ['v1-models-2slots-8192.json', TWO_SLOTS, 4096],
  ] as const)('/v1/models and /models match %s (per-slot n_ctx in meta)', async (file, opts, nCtx) => {
    const s = await start(opts);
    const fixture = readJsonFixture('llama-server', file);
    for (const path of ['/v1/models', '/models']) {
      const body = (await request(s.url, path)).json();
      expect(shapeOf(body)).toEqual(shapeOf(fixture));
      expect(body).toMatchObject({ data: [{ id: s.modelId, owned_by: 'llamacpp', meta: { n_ctx: nCtx, n_ctx_train: 262144 } }] });
    }
  });

  it.each([
    ['props-1slot-131072.json', {}, 131072, 1],
    ['props-2slots-8192.json', TWO_SLOTS, 4096, 2],
  ] as const)('/props matches %s', async (file, opts, nCtx, slots) => {
    const s = await start(opts);
    const body = (await request(s.url, '/props')).json();
    expect(shapeOf(body)).toEqual(shapeOf(readJsonFixture('llama-server', file)));
    expect(body).toMatchObject({
      default_generation_settings: { n_ctx: nCtx },
      total_slots: slots,
      model_alias: s.modelId,
      endpoint_slots: true,
      endpoint_metrics: true,
      build_info: 'b0-unknown',
    });
  });

  it.each([
    ['slots-1slot.json', {}],
    ['slots-2slots-8192.json', TWO_SLOTS],
  ] as const)('/slots of an idle server equals %s', async (file, opts) => {
    const s = await start(opts);
    expect((await request(s.url, '/slots')).json()).toEqual(readJsonFixture('llama-server', file));
  });

  it('/slots after traffic carries the task fields of the b9553 capture', async () => {
    const s = await start({ slots: 4, context: 1024 });
    expect((await request(s.url, '/v1/messages', { body: simpleBody() })).status).toBe(200);
    const slots = (await request(s.url, '/slots')).json();
    const lines = readFileSync(fixturePath('llama-server', 'b9553', 'slots-4slots-after-traffic.jsonl'), 'utf8').trim().split('\n');
    const used = lines.map((l): unknown => JSON.parse(l)).find((x) => typeof x === 'object' && x !== null && 'id_task' in x);
    expect(Array.isArray(slots)).toBe(true);
    const mine: unknown[] = Array.isArray(slots) ? slots : [];
    const ran = mine.find((x) => typeof x === 'object' && x !== null && 'id_task' in x);
    expect(shapeOf(ran)).toEqual(shapeOf(used));
    expect(mine.filter((x) => typeof x === 'object' && x !== null && !('id_task' in x))).toHaveLength(3);
  });

  it('/slots counts a prompt a batch at a time while it is read, as llama-server does', async () => {
    // server-context.cpp: server_slot::to_json reports n_prompt_tokens (the KV list: cached prefix plus the
    // batch being evaluated, then each generated token), n_prompt_tokens_processed (evaluated prompt tokens,
    // reset to 0 when the prompt starts, grown per decoded batch in metrics_post_decode), n_prompt_tokens_cache
    // and next_token[0].n_decoded (0 until the first token); /slots is answered during the decode (yield_to_queue).
    const s = await start({ prefillMsPerToken: 0.5 });
    const reply = request(s.url, '/v1/messages', { body: simpleBody({ system: 'lorem ipsum '.repeat(3000), stream: true }) });
    const seen: Array<Record<string, unknown>> = [];
    while (s.stats.completed === 0) {
      const [slot] = (await request(s.url, '/slots')).json() as Array<Record<string, unknown>>;
      if (slot?.['is_processing'] === true) seen.push(slot);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await reply;
    const total = s.requests.find((r) => r.path === '/v1/messages')?.promptTokens ?? 0;
    const decoded = (x: Record<string, unknown>): unknown => (x['next_token'] as Array<Record<string, unknown>>)[0]?.['n_decoded'];
    const reading = seen.filter((x) => decoded(x) === 0);
    const processed = reading.map((x) => Number(x['n_prompt_tokens_processed']));
    expect(new Set(processed).size, `processed counts: ${processed.join(', ')}`).toBeGreaterThanOrEqual(3);
    expect(processed).toEqual([...processed].sort((a, b) => a - b));
    for (const x of reading) {
      const done = Number(x['n_prompt_tokens_processed']);
      expect(done % 2048).toBe(0);
      expect(x['n_prompt_tokens']).toBe(Math.min(total, done + 2048));
      expect(x['n_prompt_tokens_cache']).toBe(0);
    }
    expect(total).toBeGreaterThan(7000);
  });

  it('/metrics of a fresh server equals the capture byte for byte', async () => {
    const s = await start();
    const r = await request(s.url, '/metrics');
    expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4');
    expect(r.headers.get('process-start-time-unix')).toMatch(/^\d+$/);
    expect(r.text).toBe(readFileSync(fixturePath('llama-server', 'metrics-fresh.txt'), 'utf8'));
  });

  it('/metrics counters move with traffic and keep the captured names', async () => {
    const s = await start({ script: [{ text: 'Hello, this is a reply.' }] });
    await request(s.url, '/v1/messages', { body: simpleBody() });
    await request(s.url, '/v1/messages', { body: simpleBody() });
    const text = (await request(s.url, '/metrics')).text;
    const names = (t: string): string[] => [...t.matchAll(/^(llamacpp:\S+) /gm)].map((m) => m[1] ?? '');
    expect(names(text)).toEqual(names(readFileSync(fixturePath('llama-server', 'metrics-after-traffic.txt'), 'utf8')));
    const value = (name: string): number => Number(new RegExp(`^llamacpp:${name} (\\S+)$`, 'm').exec(text)?.[1]);
    const first = s.requests[0]?.promptTokens ?? 0;
    // The second, identical request re-evaluates one token; the rest comes from the slot's KV cache.
    expect(value('prompt_tokens_total')).toBe(first + 1);
    expect(value('prompt_tokens_cached_total')).toBe(first - 1);
    expect(value('tokens_predicted_total')).toBe(12);
    expect(value('n_tokens_max')).toBe(first + 6);
    expect(value('requests_processing')).toBe(0);
  });

  it('the b9553 build exposes the 11 metric names of that build', async () => {
    const s = await start({ llamaBuild: 'b9553' });
    const names = [...(await request(s.url, '/metrics')).text.matchAll(/^(llamacpp:\S+) /gm)].map((m) => m[1]);
    expect(names).toHaveLength(11);
    expect(names).not.toContain('llamacpp:prompt_tokens_cached_total');
  });

  it('answers 404 File Not Found for unknown paths', async () => {
    const s = await start();
    const r = await request(s.url, '/v1/nothing');
    const f = readHttpFixture('err-404.http');
    expect([r.status, r.text]).toEqual([f.status, f.text]);
  });

  it('answers 501 with the exact text when --metrics / --slots are off', async () => {
    const s = await start({ metrics: false, slotsEndpoint: false });
    const m = await request(s.url, '/metrics');
    expect(m.status).toBe(501);
    expect(m.json()).toEqual({
      error: { code: 501, message: 'This server does not support metrics endpoint. Start it with `--metrics`', type: 'not_supported_error' },
    });
    const sl = await request(s.url, '/slots');
    expect(sl.status).toBe(501);
    expect(sl.json()).toEqual({
      error: { code: 501, message: 'This server does not support slots endpoint. Start it with `--slots`', type: 'not_supported_error' },
    });
    expect((await request(s.url, '/props')).json()).toMatchObject({ endpoint_slots: false, endpoint_metrics: false });
  });
});

describe('llama.cpp auth and loading', () => {
  const INVALID = '{"error":{"message":"Invalid API Key","type":"authentication_error","code":401}}';

  it('accepts Bearer or x-api-key, exempts public paths, rejects the rest with 401', async () => {
    const s = await start({ apiKey: 'k123' });
    const noKey = await request(s.url, '/v1/messages', { body: simpleBody() });
    expect([noKey.status, noKey.text]).toEqual([401, INVALID]);
    expect((await request(s.url, '/v1/messages', { body: simpleBody(), headers: { 'x-api-key': 'k123' } })).status).toBe(200);
    expect((await request(s.url, '/v1/messages', { body: simpleBody(), headers: { authorization: 'Bearer k123' } })).status).toBe(200);
    // Authorization, when present, is the only header read.
    const wrongAuth = await request(s.url, '/props', { headers: { authorization: 'Bearer nope', 'x-api-key': 'k123' } });
    expect(wrongAuth.status).toBe(401);
    for (const p of ['/health', '/v1/health', '/v1/models', '/models']) expect((await request(s.url, p)).status).toBe(200);
    for (const p of ['/props', '/slots', '/metrics']) expect((await request(s.url, p)).status).toBe(401);
  });

  it('answers 503 Loading model on every path, then 200', async () => {
    const s = await start({ loadingMs: 600_000, apiKey: 'k' }); // until the test ends it, however slow this machine
    const loading = '{"error":{"message":"Loading model","type":"unavailable_error","code":503}}';
    for (const p of ['/health', '/v1/models', '/props']) {
      const r = await request(s.url, p);
      expect([r.status, r.text]).toEqual([503, loading]);
    }
    expect((await request(s.url, '/v1/messages', { body: simpleBody() })).status).toBe(503);
    s.setLoading(0);
    expect((await request(s.url, '/health')).status).toBe(200);
    s.setLoading(10_000);
    expect((await request(s.url, '/health')).status).toBe(503);
  });
});

describe('llama.cpp router mode', () => {
  it('lists the models and routes /v1/messages by the model field', async () => {
    const s = await start({ routerModels: ['qwen-a', 'qwen-b'] });
    const list = (await request(s.url, '/v1/models')).json();
    expect(list).toMatchObject({ object: 'list', data: [{ id: 'qwen-a', status: { value: 'loaded' } }, { id: 'qwen-b' }] });
    expect((await request(s.url, '/props')).json()).toMatchObject({ role: 'router', model_alias: 'llama-server' });
    expect((await request(s.url, '/props?model=qwen-b')).json()).toMatchObject({ model_alias: 'qwen-b', total_slots: 1 });
    const unknown = await request(s.url, '/v1/messages', { body: simpleBody({ model: 'claude-sonnet-4-5' }) });
    expect([unknown.status, unknown.json()]).toEqual([400, { error: { code: 400, message: "model 'claude-sonnet-4-5' not found", type: 'invalid_request_error' } }]);
    const ok = await request(s.url, '/v1/messages', { body: simpleBody({ model: 'qwen-b' }) });
    expect([ok.status, ok.json()]).toEqual([200, expect.objectContaining({ model: 'qwen-b' })]);
  });
});

