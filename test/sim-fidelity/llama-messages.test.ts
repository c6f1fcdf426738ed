/**
 * Fidelity of the simulated llama-server's /v1/messages: body and event shapes
 * against the captures, error bodies, prompt-cache accounting and slot queueing.
 */
import { describe, expect, it } from 'vitest';
import { until } from '../helpers/processes.js';
import { startSimulator } from '../sim/index.js';
import { anyNumber, collapseRuns, usageOf, eventSignature, matching, parseSse, readHttpFixture, request, shapeOf, simpleBody, type SseRecord, simulatorPerTest } from './fixture-io.js';

const start = simulatorPerTest({ flavor: 'llama.cpp' });

/** One shape per event kind (first occurrence), for comparing with a capture. */
function shapesByKind(events: readonly SseRecord[]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  eventSignature(events).forEach((sig, i) => {
    if (!out.has(sig)) out.set(sig, shapeOf(events[i]?.data));
  });
  return out;
}

describe('llama.cpp /v1/messages replies', () => {
  it('non-stream body has the captured shape, ids and usage keys', async () => {
    const s = await start({ script: [{ thinking: 'let me see what the user wants' }] });
    const r = await request(s.url, '/v1/messages', { body: simpleBody() });
    const f = readHttpFixture('ok-nonstream.http');
    expect(r.status).toBe(f.status);
    const body = r.json();
    expect(shapeOf(body)).toEqual(shapeOf(JSON.parse(f.text)));
    expect(body).toMatchObject({ model: s.modelId, stop_reason: 'end_turn', stop_sequence: null });
    expect(JSON.stringify(body)).toMatch(/"id":"chatcmpl-[0-9A-Za-z]{32}"/);
  });

  it.each([['ok-stream.http'], ['b9553', 'ok-stream-thinking.http']])('stream follows the event order of %s', async (...file) => {
    const s = await start({ script: [{ thinking: 'a thought that spans several tokens' }] });
    const r = await request(s.url, '/v1/messages', { body: simpleBody({ stream: true }) });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/event-stream');
    const mine = parseSse(r.text);
    const theirs = parseSse(readHttpFixture(...file).text);
    expect(collapseRuns(eventSignature(mine))).toEqual(collapseRuns(eventSignature(theirs)));
    expect(shapesByKind(mine)).toEqual(shapesByKind(theirs));
    expect(r.text.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
    expect(r.text).not.toContain('[DONE]');
  });

  it('streams thinking, text and tool_use the llama.cpp way (blocks closed only at the end, no input:{})', async () => {
    const input = { command: 'ls -la', description: 'List files' };
    const s = await start({ script: [{ thinking: 'I should list.', text: 'Listing now.', toolUse: { name: 'Bash', input } }] });
    const events = parseSse((await request(s.url, '/v1/messages', { body: simpleBody({ stream: true }) })).text);
    expect(collapseRuns(eventSignature(events))).toEqual([
      'message_start',
      'content_block_start:thinking',
      'content_block_delta:thinking_delta',
      'content_block_start:text',
      'content_block_delta:text_delta',
      'content_block_start:tool_use',
      'content_block_delta:input_json_delta',
      'content_block_delta:signature_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const start2 = events.find((e) => eventSignature([e])[0] === 'content_block_start:tool_use')?.data;
    expect(start2).toEqual({ type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: matching(/^[0-9A-Za-z]{32}$/), name: 'Bash' } });
    const json = events
      .map((e) => e.data)
      .filter((d): d is { delta: { partial_json: string } } => JSON.stringify(d).includes('input_json_delta'))
      .map((d) => d.delta.partial_json)
      .join('');
    expect(JSON.parse(json)).toEqual(input);
    const stops = events.filter((e) => e.event === 'content_block_stop').map((e) => e.data);
    expect(stops).toEqual([0, 1, 2].map((index) => ({ type: 'content_block_stop', index })));
    expect(events.at(-2)?.data).toMatchObject({ delta: { stop_reason: 'tool_use', stop_sequence: null } });
  });

  it('sends ":" SSE comments while a long streamed prompt is being processed', async () => {
    const s = await start({ firstTokenDelayMs: 130, ssePingMs: 50, script: [{ text: 'hi' }] });
    const text = (await request(s.url, '/v1/messages', { body: simpleBody({ stream: true }) })).text;
    expect(text.startsWith(':\n\n:\n\nevent: message_start\n')).toBe(true);
  });

  it('max_tokens cuts the reply (stop_reason max_tokens); a stop sequence ends it with stop_sequence set', async () => {
    const s = await start({ script: () => ({ text: 'one two three four five six seven eight', toolUse: { name: 'Bash', input: { command: 'ls' } } }) });
    const cut = (await request(s.url, '/v1/messages', { body: simpleBody({ max_tokens: 3 }) })).json();
    expect(cut).toMatchObject({ stop_reason: 'max_tokens', content: [{ type: 'text', text: 'one two thre' }], usage: { output_tokens: 3 } });
    const stopped = (await request(s.url, '/v1/messages', { body: simpleBody({ stop_sequences: ['four'] }) })).json();
    expect(stopped).toMatchObject({ stop_reason: 'end_turn', stop_sequence: 'four', content: [{ type: 'text', text: 'one two three ' }] });
  });

  it('enable_thinking:false drops the thinking block, thinking:{type:"disabled"} does not', async () => {
    const s = await start({ script: () => ({ thinking: 'hmm', text: 'ok' }) });
    const off = (await request(s.url, '/v1/messages', { body: simpleBody({ chat_template_kwargs: { enable_thinking: false } }) })).json();
    expect(off).toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
    const disabled = (await request(s.url, '/v1/messages', { body: simpleBody({ thinking: { type: 'disabled' } }) })).json();
    expect(disabled).toMatchObject({ content: [{ type: 'thinking', thinking: 'hmm', signature: '' }, { type: 'text', text: 'ok' }] });
  });
});

describe('llama.cpp /v1/messages errors', () => {
  const longBody = (stream: boolean): Record<string, unknown> => simpleBody({ stream, messages: [{ role: 'user', content: 'x'.repeat(20_000) }] });

  it.each([
    [false, ['err-context.http']],
    [true, ['b9553', 'err-context-stream.http']],
  ] as const)('prompt >= n_ctx → 400 exceed_context_size_error (stream=%s) as captured', async (stream, file) => {
    const s = await start({ context: 4096 });
    const r = await request(s.url, '/v1/messages', { body: longBody(stream) });
    const f = readHttpFixture(...file);
    expect(r.status).toBe(f.status);
    expect(shapeOf(r.json())).toEqual(shapeOf(JSON.parse(f.text)));
    const n = (await request(s.url, '/v1/messages/count_tokens', { body: longBody(stream) })).json();
    expect(n).toEqual({ input_tokens: anyNumber });
    const tokens = typeof n === 'object' && n !== null && 'input_tokens' in n ? Number(n.input_tokens) : NaN;
    expect(r.json()).toEqual({
      error: {
        code: 400,
        message: `request (${tokens} tokens) exceeds the available context size (4096 tokens), try increasing it`,
        type: 'exceed_context_size_error',
        n_prompt_tokens: tokens,
        n_ctx: 4096,
      },
    });
    expect(r.headers.get('content-type')).toContain('application/json');
  });

  it('missing messages → 500 as captured', async () => {
    const s = await start();
    const r = await request(s.url, '/v1/messages', { body: { model: 'x', max_tokens: 10 } });
    const f = readHttpFixture('err-no-messages.http');
    expect([r.status, r.text]).toEqual([f.status, f.text]);
  });

  it('malformed JSON → 500 with the nlohmann parse error as captured', async () => {
    const s = await start();
    const r = await request(s.url, '/v1/messages', { body: '{bad json' });
    const f = readHttpFixture('err-bad-json.http');
    expect([r.status, r.text]).toEqual([f.status, f.text]);
  });

  it('count_tokens answers {"input_tokens":N} like the capture and agrees with usage', async () => {
    const s = await start();
    const r = await request(s.url, '/v1/messages/count_tokens', { body: simpleBody() });
    const f = readHttpFixture('count-tokens.http');
    expect(r.status).toBe(f.status);
    expect(shapeOf(r.json())).toEqual(shapeOf(JSON.parse(f.text)));
    const reply = (await request(s.url, '/v1/messages', { body: simpleBody() })).json();
    const counted = r.json();
    expect(counted).toEqual({ input_tokens: anyNumber });
    expect(usageOf(reply)['input_tokens']).toBe(typeof counted === 'object' && counted !== null && 'input_tokens' in counted ? counted.input_tokens : NaN);
  });
});

describe('llama.cpp slots and prompt cache', () => {
  const convo = (turns: number): Record<string, unknown> => {
    const messages: unknown[] = [{ role: 'user', content: 'Please inspect the repository and report what you find in detail.' }];
    for (let i = 0; i < turns; i++) {
      messages.push({ role: 'assistant', content: [{ type: 'text', text: `Step ${i} done, continuing with the next part.` }] });
      messages.push({ role: 'user', content: `Continue with part ${i + 1}.` });
    }
    return simpleBody({ system: 'You are a careful assistant working in a git repository.', messages });
  };

  it('reuses the slot prefix: cache_read = shared prefix, input = the rest, at least 1 token re-evaluated', async () => {
    const s = await start();
    const u1 = (await request(s.url, '/v1/messages', { body: convo(0) })).json();
    const u2 = (await request(s.url, '/v1/messages', { body: convo(1) })).json();
    const u3 = (await request(s.url, '/v1/messages', { body: convo(1) })).json();
    const total = (u: unknown): number => (usageOf(u)['cache_read_input_tokens'] ?? NaN) + (usageOf(u)['input_tokens'] ?? NaN);
    expect(u1).toMatchObject({ usage: { cache_read_input_tokens: 0 } });
    const u2Cached = usageOf(u2)['cache_read_input_tokens'] ?? NaN;
    expect(u2Cached).toBeGreaterThan(0);
    expect(u2Cached).toBeLessThan(total(u2));
    expect(u3).toMatchObject({ usage: { cache_read_input_tokens: total(u3) - 1, input_tokens: 1 } });
    expect(s.requests.map((r) => r.cachedTokens)).toEqual([0, u2Cached, total(u3) - 1]);
  });

  it('picks the slot holding the most similar prompt', async () => {
    const s = await start({ slots: 2 });
    const a = convo(0);
    const b = simpleBody({ system: 'A completely different system prompt for another agent.', messages: [{ role: 'user', content: 'Unrelated task.' }] });
    await request(s.url, '/v1/messages', { body: a });
    await request(s.url, '/v1/messages', { body: b });
    await request(s.url, '/v1/messages', { body: convo(1) });
    await request(s.url, '/v1/messages', { body: b });
    expect(s.requests.map((r) => r.slot)).toEqual([0, 1, 0, 1]);
  });

  it('with 1 slot, an evicted prompt comes back from the RAM prompt cache', async () => {
    const s = await start({ slots: 1 });
    const b = simpleBody({ system: 'Another agent with its own long instructions.', messages: [{ role: 'user', content: 'Other work.' }] });
    await request(s.url, '/v1/messages', { body: convo(0) });
    await request(s.url, '/v1/messages', { body: b });
    await request(s.url, '/v1/messages', { body: convo(1) });
    const withRam = s.requests[2]?.cachedTokens ?? 0;
    const s2 = await startSimulator({ flavor: 'llama.cpp', slots: 1, cacheRam: false });
    try {
      for (const body of [convo(0), b, convo(1)]) await request(s2.url, '/v1/messages', { body });
      // Without it only the shared "<|im_start|>system\n" header survives the eviction.
      expect(s2.requests[2]?.cachedTokens).toBe(4);
      expect(withRam).toBeGreaterThan(20);
    } finally {
      await s2.close();
    }
  });

  it('queues requests without sending any bytes while all slots are busy', async () => {
    const s = await start({ slots: 2, firstTokenDelayMs: 400, script: () => ({ text: 'hello' }) });
    let headersSeen = 0;
    const calls = [0, 1, 2, 3].map(async (i) => {
      const r = await fetch(`${s.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(simpleBody({ stream: true, messages: [{ role: 'user', content: `task ${i}` }] })),
      });
      headersSeen++;
      return parseSse(await r.text());
    });
    expect(await until(() => headersSeen === 2 && s.stats.inFlight === 2 && s.stats.queued === 2, 5000)).toBe(true);
    const metrics = (await request(s.url, '/metrics')).text;
    expect(metrics).toContain('llamacpp:requests_processing 2\n');
    expect(metrics).toContain('llamacpp:requests_deferred 2\n');
    const slots = (await request(s.url, '/slots')).json();
    expect(slots).toMatchObject([{ is_processing: true }, { is_processing: true }]);
    const results = await Promise.all(calls);
    expect(results.every((ev) => ev.at(-1)?.event === 'message_stop')).toBe(true);
    expect(s.stats).toMatchObject({ inFlight: 0, peakInFlight: 2, completed: 4, queued: 0 });
  });
});
