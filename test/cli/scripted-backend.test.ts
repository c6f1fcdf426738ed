/**
 * The self-test's built-in model speaks enough Anthropic Messages for Claude
 * Code: the model list the prober reads, count_tokens, SSE in llama.cpp's
 * shape (a tool call, then a text) and the non-streaming fallback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SELFTEST_MODEL, startScriptedBackend, type ScriptedBackend } from '../../src/selftest/scripted-backend.js';

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
      const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? '{}') as Record<string, unknown>;
      return { event, data };
    });
}

describe('scripted backend', () => {
  let backend: ScriptedBackend;
  const post = (path: string, body: unknown): Promise<Response> =>
    fetch(`${backend.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    backend = await startScriptedBackend((turns) =>
      turns === 0 ? { text: 'Creating it.', toolUse: { name: 'Write', input: { file_path: 'a.md', content: 'x' } } } : { text: 'Done.' },
    );
  });
  afterAll(() => backend.close());

  it('listens on loopback and lists its one model', async () => {
    expect(backend.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const models = (await (await fetch(`${backend.url}/v1/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data.map((m) => m.id)).toEqual([SELFTEST_MODEL]);
  });

  it('answers count_tokens', async () => {
    const res = await post('/v1/messages/count_tokens?beta=true', { model: SELFTEST_MODEL, messages: [{ role: 'user', content: 'hello there' }] });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
  });

  it('streams a tool call on the first turn: tool_use start without input, arguments as input_json_delta', async () => {
    const res = await post('/v1/messages?beta=true', { model: SELFTEST_MODEL, stream: true, messages: [{ role: 'user', content: 'write a.md' }] });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual([
      'message_start', 'content_block_start', 'content_block_delta', 'content_block_stop',
      'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop',
    ]);
    expect(events[4]?.data.content_block).toMatchObject({ type: 'tool_use', name: 'Write' });
    expect(events[4]?.data.content_block).not.toHaveProperty('input');
    expect(JSON.parse(String((events[5]?.data.delta as { partial_json: string }).partial_json))).toEqual({ file_path: 'a.md', content: 'x' });
    expect(events[7]?.data).toMatchObject({ delta: { stop_reason: 'tool_use' } });
  });

  it('answers text once the conversation has an assistant turn, and reports the shared prefix as cached', async () => {
    const first = [{ role: 'user', content: 'write a.md' }];
    await post('/v1/messages', { model: SELFTEST_MODEL, messages: first });
    const res = await post('/v1/messages', {
      model: SELFTEST_MODEL,
      messages: [...first, { role: 'assistant', content: [{ type: 'text', text: 'Creating it.' }] }, { role: 'user', content: 'ok' }],
    });
    const body = (await res.json()) as { content: Array<{ type: string; text?: string }>; stop_reason: string; usage: { cache_read_input_tokens: number } };
    expect(body.content).toEqual([{ type: 'text', text: 'Done.' }]);
    expect(body.stop_reason).toBe('end_turn');
    expect(body.usage.cache_read_input_tokens).toBeGreaterThan(0);
  });

  it('answers an Anthropic error for what it does not serve, and records every request', async () => {
    const res = await fetch(`${backend.url}/v1/complete`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    const bad = await fetch(`${backend.url}/v1/messages`, { method: 'POST', body: '{not json' });
    expect(bad.status).toBe(400);
    expect(backend.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toContain('POST /v1/complete 404');
  });
});
