/**
 * The vLLM flavour: endpoints, event shapes and its error
 * bodies and statuses (docs/backends.md §4), Bearer-only auth, not listening while loading,
 * inline system handling, scheduling and metrics.
 */
import { describe, expect, it } from 'vitest';
import { until } from '../helpers/processes.js';
import { startSimulator } from '../sim/index.js';
import { anyNumber, anyString, claudeCodeRequest, collapseRuns, containing, eventSignature, matching, objectContaining, parseSse, request, simpleBody, usageOf, simulatorPerTest } from './fixture-io.js';

const start = simulatorPerTest({ flavor: 'vllm' });

const body = (extra: Record<string, unknown> = {}): Record<string, unknown> => simpleBody({ model: 'qwen3.8-27b', ...extra });

function metric(text: string, name: string): number {
  const m = new RegExp(`^vllm:${name}\\{[^}]*\\} (\\S+)$`, 'm').exec(text);
  return Number(m?.[1]);
}

describe('vLLM endpoints', () => {
  it('/health is an empty 200, /v1/models reports max_model_len and permissions', async () => {
    const s = await start({ context: 32768 });
    const h = await request(s.url, '/health');
    expect([h.status, h.text]).toEqual([200, '']);
    expect((await request(s.url, '/v1/models')).json()).toEqual({
      object: 'list',
      data: [
        {
          id: 'qwen3.8-27b',
          object: 'model',
          created: anyNumber,
          owned_by: 'vllm',
          root: anyString,
          parent: null,
          max_model_len: 32768,
          permission: [objectContaining({ object: 'model_permission', id: matching(/^modelperm-/) })],
        },
      ],
    });
  });

  it('/metrics names carry model_name and engine labels and move with traffic', async () => {
    const s = await start();
    const before = (await request(s.url, '/metrics')).text;
    for (const n of ['num_requests_running', 'num_requests_waiting', 'kv_cache_usage_perc', 'prefix_cache_queries_total', 'prefix_cache_hits_total', 'prompt_tokens_total', 'generation_tokens_total']) {
      expect(before).toMatch(new RegExp(`^vllm:${n}\\{model_name="qwen3.8-27b",engine="0"\\} 0\\.0$`, 'm'));
    }
    s.setScript(() => ({ text: 'A reply of some length.' }));
    const long = body({ system: 'S'.repeat(2000) });
    await request(s.url, '/v1/messages', { body: long });
    await request(s.url, '/v1/messages', { body: long });
    const after = (await request(s.url, '/metrics')).text;
    expect(metric(after, 'generation_tokens_total')).toBe(12);
    expect(metric(after, 'prompt_tokens_total')).toBe(2 * (s.requests[1]?.promptTokens ?? 0));
    expect(metric(after, 'prefix_cache_hits_total')).toBeGreaterThanOrEqual(496);
    expect(metric(after, 'prefix_cache_hits_total') % 16).toBe(0);
  });
});

describe('vLLM /v1/messages', () => {
  it('streams with vLLM shapes: tool_use input:{}, blocks closed on type change, uuid signature', async () => {
    const s = await start({ script: [{ thinking: 'Think first.', text: 'Now act.', toolUse: { name: 'Bash', input: { command: 'ls' } } }] });
    const r = await request(s.url, '/v1/messages', { body: body({ stream: true }) });
    expect(r.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = parseSse(r.text);
    expect(collapseRuns(eventSignature(events))).toEqual([
      'message_start',
      'content_block_start:thinking',
      'content_block_delta:thinking_delta',
      'content_block_delta:signature_delta',
      'content_block_stop',
      'content_block_start:text',
      'content_block_delta:text_delta',
      'content_block_stop',
      'content_block_start:tool_use',
      'content_block_delta:input_json_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const data = events.map((e) => e.data);
    expect(data).toContainEqual({ type: 'content_block_start', content_block: { type: 'tool_use', id: matching(/^chatcmpl-tool-[0-9a-f]{32}$/), name: 'Bash', input: {} }, index: 2 });
    expect(data).toContainEqual({ type: 'content_block_delta', delta: { type: 'signature_delta', signature: matching(/^[0-9a-f]{32}$/) }, index: 0 });
    const start0 = data[0];
    expect(start0).toMatchObject({ message: { id: matching(/^chatcmpl-/), model: 'qwen3.8-27b', usage: { output_tokens: 0 } } });
    const delta = data.at(-2);
    expect(delta).toEqual({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { input_tokens: anyNumber, output_tokens: anyNumber } });
    expect(r.text).not.toContain('[DONE]');
  });

  it('non-stream body omits stop_sequence and reports cache_read only with promptTokensDetails', async () => {
    const s = await start({ script: () => ({ thinking: 'hm', text: 'hi' }) });
    const plain = (await request(s.url, '/v1/messages', { body: body() })).json();
    expect(plain).toEqual({
      id: matching(/^chatcmpl-[0-9a-f]{32}$/),
      type: 'message',
      role: 'assistant',
      content: [{ type: 'thinking', thinking: 'hm', signature: matching(/^[0-9a-f]{32}$/) }, { type: 'text', text: 'hi' }],
      model: 'qwen3.8-27b',
      stop_reason: 'end_turn',
      usage: { input_tokens: anyNumber, output_tokens: 2 },
    });
    const s2 = await startSimulator({ flavor: 'vllm', promptTokensDetails: true });
    try {
      const long = body({ system: 'Q'.repeat(4000) });
      await request(s2.url, '/v1/messages', { body: long });
      const second = (await request(s2.url, '/v1/messages', { body: long })).json();
      expect(usageOf(second)['cache_creation_input_tokens']).toBe(0);
      expect(usageOf(second)['cache_read_input_tokens']).toBeGreaterThan(900);
      expect(usageOf(plain)['cache_read_input_tokens']).toBeUndefined();
    } finally {
      await s2.close();
    }
  });

  it('prompt + max_tokens > max_model_len → HTTP 500 internal_error with vLLM text', async () => {
    const s = await start({ context: 32768 });
    const r = await request(s.url, '/v1/messages', { body: body({ max_tokens: 32000, stream: true, system: 'x'.repeat(4000) }) });
    expect(r.status).toBe(500);
    expect(r.json()).toEqual({
      type: 'error',
      error: {
        type: 'internal_error',
        message:
          "This model's maximum context length is 32768 tokens. However, you requested 32000 output tokens and your prompt contains at least 769 input tokens, for a total of at least 32769 tokens. Please reduce the length of the input prompt or the number of requested output tokens.",
      },
    });
    const big = await request(s.url, '/v1/messages', { body: body({ max_tokens: 40000 }) });
    expect(big.status).toBe(500);
    expect(big.json()).toMatchObject({ error: { message: 'max_completion_tokens=40000 cannot be greater than max_model_len=max_total_tokens=32768. Please request fewer output tokens.' } });
  });

  it('rejects a wrong model (404 NotFoundError) and a missing max_tokens (400, OpenAI-shaped)', async () => {
    const s = await start();
    const wrong = await request(s.url, '/v1/messages', { body: simpleBody() });
    expect([wrong.status, wrong.text]).toEqual([404, '{"type":"error","error":{"type":"NotFoundError","message":"The model `claude-sonnet-4-5` does not exist."}}']);
    const noMax = await request(s.url, '/v1/messages', { body: { model: 'qwen3.8-27b', messages: [{ role: 'user', content: 'hi' }] } });
    expect(noMax.status).toBe(400);
    expect(noMax.json()).toEqual({ error: { message: containing("'loc': ('body', 'max_tokens'), 'msg': 'Field required'"), type: 'Bad Request', param: 'max_tokens', code: 400 } });
    const count = await request(s.url, '/v1/messages/count_tokens', { body: { model: 'qwen3.8-27b', messages: [{ role: 'user', content: 'hi' }] } });
    expect(count.json()).toEqual({ input_tokens: anyNumber, context_management: { original_input_tokens: anyNumber } });
  });

  it('without a tool parser, tools get 400 BadRequestError in vLLM\'s words (auto, any, a named tool); no tools pass', async () => {
    const s = await start({ vllmToolParser: false });
    const tools = [{ name: 'Bash', description: 'run', input_schema: { type: 'object' } }];
    const refusal = (message: string): string => JSON.stringify({ type: 'error', error: { type: 'BadRequestError', message } });
    const auto = await request(s.url, '/v1/messages', { body: body({ tools }) });
    expect([auto.status, auto.text]).toEqual([400, refusal('"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set')]);
    const any = await request(s.url, '/v1/messages', { body: body({ tools, tool_choice: { type: 'any' } }) });
    expect([any.status, any.text]).toEqual([400, refusal('tool_choice="required" requires --tool-call-parser to be set')]);
    const named = await request(s.url, '/v1/messages', { body: body({ tools, tool_choice: { type: 'tool', name: 'Bash' } }) });
    expect([named.status, named.text]).toEqual([400, refusal('tool_choice=function "Bash" requires --tool-call-parser to be set')]);
    expect((await request(s.url, '/v1/messages', { body: body() })).status).toBe(200);
  });

  it('accepts Bearer only on /v1*, 401 {"error":"Unauthorized"} otherwise', async () => {
    const s = await start({ apiKey: 'k' });
    const x = await request(s.url, '/v1/messages', { body: body(), headers: { 'x-api-key': 'k' } });
    expect([x.status, x.text]).toEqual([401, '{"error":"Unauthorized"}']);
    expect((await request(s.url, '/v1/models')).status).toBe(401);
    expect((await request(s.url, '/v1/messages', { body: body(), headers: { authorization: 'Bearer k' } })).status).toBe(200);
    expect((await request(s.url, '/health')).status).toBe(200);
    expect((await request(s.url, '/metrics')).status).toBe(200);
  });

  it('merges mid-conversation system messages by default; in place they hit the template (500)', async () => {
    const raw = { ...claudeCodeRequest('session-write-bash-3-turns', 1), model: 'qwen3.8-27b' };
    const s = await start({ strictQwen: true });
    expect((await request(s.url, '/v1/messages', { body: raw })).status).toBe(200);
    const keep = await startSimulator({ flavor: 'vllm', strictQwen: true, vllmInlineSystem: 'keep' });
    try {
      const r = await request(keep.url, '/v1/messages', { body: raw });
      expect([r.status, r.json()]).toEqual([500, { type: 'error', error: { type: 'internal_error', message: 'System message must be at the beginning.' } }]);
    } finally {
      await keep.close();
    }
  });

  it('refuses connections while loading, then serves on the same port', async () => {
    // A load that lasts until the test ends it: what is seen during it does not depend on how fast this machine is.
    const s = await start({ loadingMs: 600_000 });
    const refused = (): Promise<boolean> => fetch(`${s.url}/health`).then(() => false, () => true);
    expect(await until(refused, 5000)).toBe(true);
    await s.setDown(false); // the load ends: vLLM listens again on the same port
    expect((await request(s.url, '/health')).status).toBe(200);
  });

  it('runs at most `slots` requests; the rest wait (stream headers already sent)', async () => {
    const s = await start({ slots: 1, firstTokenDelayMs: 300, script: () => ({ text: 'ok' }) });
    let headers = 0;
    const calls = [1, 2].map(async () => {
      const r = await fetch(`${s.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body({ stream: true })) });
      headers++;
      return r.text();
    });
    expect(await until(() => headers === 2, 5000)).toBe(true);
    const m = (await request(s.url, '/metrics')).text;
    expect([metric(m, 'num_requests_running'), metric(m, 'num_requests_waiting')]).toEqual([1, 1]);
    expect(s.stats).toMatchObject({ inFlight: 1, queued: 1 });
    await Promise.all(calls);
    expect(s.stats).toMatchObject({ peakInFlight: 1, completed: 2 });
  });
});
