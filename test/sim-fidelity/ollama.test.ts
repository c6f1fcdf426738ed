/**
 * The Ollama flavour against what Ollama's docs and source say. Checked
 * against docs.ollama.com (api/anthropic-compatibility, context-length) and
 * ollama/ollama at the commits listed in test/sim/README.md ("Ollama"):
 * anthropic/anthropic.go (request conversion, StreamConverter, NewError),
 * middleware/anthropic.go (validation, error writer), server/routes.go
 * (ChatHandler order, /api/ps), server/prompt.go (silent truncation).
 */
import { describe, expect, it } from 'vitest';
import { until } from '../helpers/processes.js';
import { startSimulator } from '../sim/index.js';
import { anyNumber, anyString, claudeCodeRequest, collapseRuns, eventSignature, matching, parseSse, request, simulatorPerTest, usageOf } from './fixture-io.js';

const MODEL = 'qwen3-coder:30b';
const start = simulatorPerTest({ flavor: 'ollama', modelId: MODEL });

const body = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ model: MODEL, max_tokens: 1024, messages: [{ role: 'user', content: 'Say hello.' }], ...extra });

/** NewError's envelope: Anthropic type by status, and a request id. */
const ollamaError = (type: string, message: string): unknown => ({ type: 'error', error: { type, message }, request_id: matching(/^req_[0-9a-f]{24}$/) });

describe('Ollama endpoints (routes.go; docs/api.md)', () => {
  it('/ says it is running; /api/version, /api/tags and /api/ps have the documented fields', async () => {
    const s = await start({ context: 32768 });
    const root = await request(s.url, '/');
    expect([root.status, root.text]).toEqual([200, 'Ollama is running']);
    expect((await request(s.url, '/api/version')).json()).toEqual({ version: matching(/^\d+\.\d+\.\d+$/) });
    const anyArray: unknown = expect.any(Array);
    const details = { parent_model: '', format: 'gguf', family: anyString, families: anyArray, parameter_size: anyString, quantization_level: anyString };
    expect((await request(s.url, '/api/tags')).json()).toEqual({
      models: [{ name: MODEL, model: MODEL, modified_at: anyString, size: anyNumber, digest: matching(/^[0-9a-f]{64}$/), details }],
    });
    // api/types.go ProcessModelResponse: context_length is what the model was loaded with (`ollama ps` CONTEXT).
    expect((await request(s.url, '/api/ps')).json()).toEqual({
      models: [{ name: MODEL, model: MODEL, size: anyNumber, digest: matching(/^[0-9a-f]{64}$/), details, expires_at: anyString, size_vram: anyNumber, context_length: 32768 }],
    });
  });

  it('lists a model in /api/ps only once a request has loaded it', async () => {
    const s = await start({ ollamaLoaded: false });
    expect((await request(s.url, '/api/ps')).json()).toEqual({ models: [] });
    expect((await request(s.url, '/v1/messages', { body: body() })).status).toBe(200);
    expect((await request(s.url, '/api/ps')).json()).toMatchObject({ models: [{ name: MODEL }] });
  });

  it('has no count_tokens (docs: "Not supported") and answers unknown routes with gin\'s plain 404', async () => {
    const s = await start();
    for (const [path, init] of [['/v1/messages/count_tokens', { body: body() }], ['/v1/models/nope', {}], ['/slots', {}]] as const) {
      const r = await request(s.url, path, init);
      expect([r.status, r.text, r.headers.get('content-type')]).toEqual([404, '404 page not found', 'text/plain']);
    }
  });
});

describe('Ollama /v1/messages output (StreamConverter, ToMessagesResponse)', () => {
  it('streams thinking → text → tool_use: no signature, one input_json_delta per call, the estimate in message_start', async () => {
    const s = await start({ script: [{ thinking: 'Think first.', text: 'Now act.', toolUse: { name: 'Bash', input: { command: 'ls', description: 'list' } } }] });
    const r = await request(s.url, '/v1/messages', { body: body({ stream: true }), headers: { 'x-api-key': 'ignored' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/event-stream');
    const events = parseSse(r.text);
    expect(collapseRuns(eventSignature(events))).toEqual([
      'message_start',
      'content_block_start:thinking',
      'content_block_delta:thinking_delta',
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
    // Go omits empty fields: no stop_reason/stop_sequence in message_start, no signature on thinking.
    expect(data[0]).toEqual({
      type: 'message_start',
      message: { id: matching(/^msg_[0-9a-f]{24}$/), type: 'message', role: 'assistant', model: MODEL, content: [], usage: { input_tokens: anyNumber, output_tokens: 0 } },
    });
    expect(data[1]).toEqual({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } });
    expect(data).toContainEqual({ type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: matching(/^call_[a-z0-9]{8}$/), name: 'Bash', input: {} } });
    expect(data).toContainEqual({ type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"command":"ls","description":"list"}' } });
    expect(r.text).not.toContain('signature');
    expect(r.text).not.toContain('ping');
    const delta = data.at(-2);
    expect(delta).toEqual({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { input_tokens: anyNumber, output_tokens: anyNumber } });
    // message_start has len/4 of the request; the prompt count comes only with the last chunk.
    const estimate = usageOf((data[0] as { message: unknown }).message)['input_tokens'];
    expect(estimate).toBe(Math.floor('userSay hello.'.length / 4));
    expect(usageOf(delta)['input_tokens']).toBe(s.requests[0]?.promptTokens);
  });

  it('non-stream: no stop_sequence even when a stop sequence ended it, no cache usage, content null when nothing came out', async () => {
    const s = await start({ script: () => ({ thinking: 'hm', text: 'one STOP two' }) });
    const r = await request(s.url, '/v1/messages', { body: body({ stop_sequences: ['STOP'] }) });
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.json()).toEqual({
      id: matching(/^msg_[0-9a-f]{24}$/),
      type: 'message',
      role: 'assistant',
      model: MODEL,
      content: [{ type: 'thinking', thinking: 'hm' }, { type: 'text', text: 'one ' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: anyNumber, output_tokens: anyNumber },
    });
    s.setScript(() => ({ text: '' }));
    expect((await request(s.url, '/v1/messages', { body: body() })).json()).toMatchObject({ content: null, stop_reason: 'end_turn' });
  });

  it('thinking disabled removes the thinking block; max_tokens reached is max_tokens', async () => {
    const s = await start({ script: () => ({ thinking: 'long thoughts here', text: 'a fairly long answer text' }) });
    const off = (await request(s.url, '/v1/messages', { body: body({ thinking: { type: 'disabled' } }) })).json();
    expect(off).toMatchObject({ content: [{ type: 'text', text: 'a fairly long answer text' }] });
    expect((await request(s.url, '/v1/messages', { body: body({ max_tokens: 2 }) })).json()).toMatchObject({ stop_reason: 'max_tokens', usage: { output_tokens: 2 } });
  });

  it('a failure mid-stream has no error event: the stream just ends without message_delta/message_stop', async () => {
    const s = await start({ script: [{ text: 'partial answer', streamError: { message: 'runner crashed' } }] });
    const r = await request(s.url, '/v1/messages', { body: body({ stream: true }) });
    const names = parseSse(r.text).map((e) => e.event);
    expect(names[0]).toBe('message_start');
    expect(names).toContain('content_block_delta');
    expect(names).not.toContain('error');
    expect(names).not.toContain('message_stop');
  });
});

describe('Ollama /v1/messages errors (middleware/anthropic.go, routes.go)', () => {
  it.each([
    [' ', 'EOF'],
    ['{"model": "qw', 'unexpected EOF'],
    ['not json', "invalid character 'o' in literal null (expecting 'u')"],
    ['{"model" "x"}', `invalid character '"' after object key`],
    ['{"model": "x",}', "invalid character '}' looking for beginning of object key string"],
    ['[1]', 'json: cannot unmarshal array into Go value of type anthropic.MessagesRequest'],
    ['{"model": "x", "max_tokens": "100"}', 'json: cannot unmarshal string into Go struct field MessagesRequest.max_tokens of type int'],
  ])('body %j → 400 invalid_request_error %j (Go encoding/json text)', async (text, message) => {
    const s = await start();
    const r = await request(s.url, '/v1/messages', { body: text });
    expect([r.status, r.json()]).toEqual([400, ollamaError('invalid_request_error', message)]);
  });

  it('checks model, then max_tokens, then messages; an unknown model is 404 not_found_error; ":latest" may be left out', async () => {
    const s = await start({ modelId: 'qwen3-coder:latest' });
    const cases: [Record<string, unknown>, number, unknown][] = [
      [{ messages: [{ role: 'user', content: 'hi' }] }, 400, ollamaError('invalid_request_error', 'model is required')],
      [{ model: 'qwen3-coder', messages: [{ role: 'user', content: 'hi' }] }, 400, ollamaError('invalid_request_error', 'max_tokens is required and must be positive')],
      [{ model: 'qwen3-coder', max_tokens: 10, messages: [] }, 400, ollamaError('invalid_request_error', 'messages is required')],
      [{ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }, 404, ollamaError('not_found_error', "model 'claude-sonnet-4-5' not found")],
    ];
    for (const [b, status, answer] of cases) {
      const r = await request(s.url, '/v1/messages', { body: b });
      expect([r.status, r.json()]).toEqual([status, answer]);
    }
    expect((await request(s.url, '/v1/messages', { body: { model: 'Qwen3-Coder', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] } })).status).toBe(200);
  });

  it('keeps mid-conversation system messages in place: a strict renderer refuses them with 500 api_error (#17774)', async () => {
    const raw = { ...claudeCodeRequest('session-write-bash-3-turns', 1), model: MODEL };
    const lenient = await start();
    expect((await request(lenient.url, '/v1/messages', { body: raw })).status).toBe(200);
    const strict = await startSimulator({ flavor: 'ollama', modelId: MODEL, strictQwen: true });
    try {
      const r = await request(strict.url, '/v1/messages', { body: raw });
      expect([r.status, r.json()]).toEqual([500, ollamaError('api_error', 'system message must be at the beginning')]);
    } finally {
      await strict.close();
    }
  });
});

describe('Ollama context window (server/prompt.go chatPrompt, runner truncation)', () => {
  const turns = (n: number): Record<string, unknown>[] =>
    Array.from({ length: n }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i} `.repeat(120) }));

  it('never refuses an over-long prompt: it drops the oldest messages silently and reports at most num_ctx input tokens', async () => {
    const request8 = body({ system: 'You are terse.', messages: turns(9) });
    const roomy = await start({ context: 131072 });
    const full = usageOf((await request(roomy.url, '/v1/messages', { body: request8 })).json())['input_tokens'] ?? 0;
    expect(full).toBeGreaterThan(2048);
    const small = await startSimulator({ flavor: 'ollama', modelId: MODEL, context: 2048 });
    try {
      const r = await request(small.url, '/v1/messages', { body: request8 });
      expect(r.status).toBe(200);
      const cut = usageOf(r.json())['input_tokens'] ?? 0;
      expect(cut).toBeLessThanOrEqual(2048);
      expect(cut).toBeGreaterThan(0);
      // Whole messages went: what is left is well under the window, not cut at exactly 2048.
      expect(cut).toBeLessThan(2048 - 100);
      // The last message alone larger than the window: the runner keeps num_ctx tokens and still answers.
      const huge = await request(small.url, '/v1/messages', { body: body({ messages: [{ role: 'user', content: 'x'.repeat(40_000) }] }) });
      expect([huge.status, usageOf(huge.json())['input_tokens']]).toEqual([200, 2048]);
    } finally {
      await small.close();
    }
  });
});

describe('Ollama scheduling', () => {
  it('runs OLLAMA_NUM_PARALLEL requests (default 1); the others wait with no bytes sent', async () => {
    const s = await start({ firstTokenDelayMs: 1500, script: () => ({ text: 'ok' }) });
    let headers = 0;
    const calls = [1, 2].map(async () => {
      const r = await fetch(`${s.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body({ stream: true })) });
      headers++;
      return r.text();
    });
    expect(await until(() => s.stats.inFlight === 1 && s.stats.queued === 1, 5000)).toBe(true);
    expect(headers).toBe(0); // within the first token's 1.5 s: Ollama sends headers with it
    await Promise.all(calls);
    expect(s.stats).toMatchObject({ peakInFlight: 1, completed: 2 });
  });
});
