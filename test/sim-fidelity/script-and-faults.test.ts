/**
 * Scripted turns and injected faults, on both flavours: list scripts indexed by
 * assistant turns, compaction requests, script functions, HTTP error turns,
 * cut sockets, hangs, mid-stream error events, and a server that goes down.
 */
import { describe, expect, it } from 'vitest';
import { until } from '../helpers/processes.js';
import { COMPACTION_MARKER, type ParsedRequest, type ScriptContext, type SimFlavor, type Simulator, type SimulatorOptions } from '../sim/index.js';
import { anyNumber, claudeCodeRequest, parseSse, request, simpleBody, simulatorPerTest } from './fixture-io.js';

const startAny = simulatorPerTest({ flavor: 'llama.cpp' });
const start = (flavor: SimFlavor, opts: Partial<SimulatorOptions> = {}): Promise<Simulator> => startAny({ ...opts, flavor });

const body = (flavor: SimFlavor, extra: Record<string, unknown> = {}): Record<string, unknown> =>
  simpleBody({ ...(flavor === 'vllm' ? { model: 'qwen3.8-27b' } : {}), ...extra });

function textOf(reply: unknown): string {
  if (typeof reply !== 'object' || reply === null || !('content' in reply) || !Array.isArray(reply.content)) return '';
  return reply.content.map((b: unknown) => (typeof b === 'object' && b !== null && 'text' in b ? String(b.text) : '')).join('');
}

describe.each(['llama.cpp', 'vllm'] as const)('%s scripts', (flavor) => {
  it('a list script answers by the number of assistant messages, then "done"', async () => {
    const s = await start(flavor, { script: [{ text: 'first' }, { text: 'second' }] });
    const turn0 = body(flavor);
    const turn1 = body(flavor, { messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'first' }, { role: 'user', content: 'b' }] });
    expect(textOf((await request(s.url, '/v1/messages', { body: turn0 })).json())).toBe('first');
    // A client retry of the same request gets the same answer.
    expect(textOf((await request(s.url, '/v1/messages', { body: turn0 })).json())).toBe('first');
    expect(textOf((await request(s.url, '/v1/messages', { body: turn1 })).json())).toBe('second');
    const turn2 = body(flavor, { messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'x' }, { role: 'user', content: 'b' }, { role: 'assistant', content: 'y' }, { role: 'user', content: 'c' }] });
    expect(textOf((await request(s.url, '/v1/messages', { body: turn2 })).json())).toBe('done');
  });

  it('a compaction request gets an <analysis>/<summary> text reply whatever the script says', async () => {
    const s = await start(flavor, { script: () => ({ toolUse: { name: 'Bash', input: { command: 'rm -rf /' } } }) });
    const compaction = { ...claudeCodeRequest('auto-compaction-32k-window-8k-output', 9), stream: false, ...(flavor === 'vllm' ? { model: 'qwen3.8-27b' } : {}) };
    const reply = (await request(s.url, '/v1/messages', { body: compaction })).json();
    expect(reply).toMatchObject({ stop_reason: 'end_turn' });
    expect(textOf(reply)).toMatch(/^<analysis>[\s\S]*<\/analysis>\s*<summary>[\s\S]*<\/summary>$/);
  });

  it('a script function sees the parsed request and the context', async () => {
    const seen: [ParsedRequest, ScriptContext][] = [];
    const s = await start(flavor, {
      script: (req, ctx) => {
        seen.push([req, ctx]);
        return { text: `#${ctx.requestIndex}` };
      },
    });
    await request(s.url, '/v1/messages?beta=true', { body: body(flavor, { stream: true }), headers: { 'x-test': 'yes' } });
    const reply = (await request(s.url, '/v1/messages', { body: body(flavor) })).json();
    expect(textOf(reply)).toBe('#1');
    const [req, ctx] = seen[0] ?? [];
    expect(req).toMatchObject({ stream: true, maxTokens: 256, assistantTurns: 0, lastUserText: 'Say hello.', isCompaction: false, headers: { 'x-test': 'yes' } });
    expect(ctx).toMatchObject({ flavor, requestIndex: 0, promptTokens: anyNumber });
  });

  it('an error turn is answered as given, without taking a slot', async () => {
    const s = await start(flavor, { script: [{ error: { status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, headers: { 'retry-after': '3' } } }] });
    const r = await request(s.url, '/v1/messages', { body: body(flavor) });
    expect([r.status, r.json(), r.headers.get('retry-after')]).toEqual([529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, '3']);
    expect(s.stats.peakInFlight).toBe(0);
  });
});

describe.each(['llama.cpp', 'vllm'] as const)('%s faults', (flavor) => {
  it('cutAfterEvents destroys the socket after N events', async () => {
    const s = await start(flavor, { script: [{ text: 'a fairly long reply that spans many tokens' }, { text: 'fine' }], tokenDelayMs: 5 });
    s.setScript(() => ({ text: 'a fairly long reply that spans many tokens', cutAfterEvents: 3 }));
    const r = await fetch(`${s.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body(flavor, { stream: true })) });
    expect(r.status).toBe(200);
    let received = '';
    const reader = r.body?.getReader();
    const decoder = new TextDecoder();
    await expect(
      (async (): Promise<void> => {
        for (;;) {
          const chunk = await reader?.read();
          if (chunk === undefined || chunk.done) return;
          const value: unknown = chunk.value;
          if (value instanceof Uint8Array) received += decoder.decode(value, { stream: true });
        }
      })(),
    ).rejects.toThrow();
    expect(parseSse(received)).toHaveLength(3);
    expect(await until(() => s.stats.inFlight === 0 && s.stats.aborted === 1, 5000)).toBe(true);
    expect(s.stats).toMatchObject({ inFlight: 0, aborted: 1, completed: 0 });
  });

  it('hangAfterHeaders holds the request until the client gives up, then frees the slot', async () => {
    const s = await start(flavor, { slots: 1 });
    s.setScript(() => ({ text: 'never sent', hangAfterHeaders: true }));
    const ac = new AbortController();
    const r = await fetch(`${s.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body(flavor, { stream: true })), signal: ac.signal });
    expect(r.status).toBe(200);
    const reading = r.text();
    expect(await until(() => s.stats.inFlight === 1, 5000)).toBe(true);
    ac.abort();
    await expect(reading).rejects.toThrow();
    expect(await until(() => s.stats.inFlight === 0 && s.stats.aborted === 1, 5000)).toBe(true);
    s.setScript([]);
    expect((await request(s.url, '/v1/messages', { body: body(flavor) })).status).toBe(200);
  });

  it('streamError emits the flavour’s error event and ends without message_stop', async () => {
    const s = await start(flavor, { script: () => ({ text: 'partial answer', streamError: { message: 'Failed to parse input at pos 22: <think>' } }) });
    const events = parseSse((await request(s.url, '/v1/messages', { body: body(flavor, { stream: true }) })).text);
    const last = events.at(-1);
    expect(last?.event).toBe('error');
    expect(last?.data).toEqual(
      flavor === 'llama.cpp'
        ? { code: 500, message: 'Failed to parse input at pos 22: <think>', type: 'server_error' }
        : { type: 'error', error: { type: 'internal_error', message: 'Failed to parse input at pos 22: <think>' } },
    );
    expect(events.map((e) => e.event)).toContain('content_block_delta');
    expect(events.map((e) => e.event)).not.toContain('message_stop');
  });

  it('setDown refuses connections; setDown(false) serves again on the same port', async () => {
    const s = await start(flavor);
    await s.setDown(true);
    await expect(fetch(`${s.url}/health`)).rejects.toThrow();
    await s.setDown(false);
    expect((await request(s.url, '/health')).status).toBe(200);
  });
});

describe('llama.cpp readUntil', () => {
  it("ends a turn's prompt reading once its promise settles, with /slots counting the read meanwhile", async () => {
    let enough: () => void = () => undefined;
    const readUntil = new Promise<void>((resolve) => (enough = resolve));
    const s = await start('llama.cpp', { script: [{ text: 'read', delayMs: 600_000, readUntil }] });
    const reply = request(s.url, '/v1/messages', { body: body('llama.cpp') });
    const reading = async (): Promise<boolean> => {
      const slots = (await request(s.url, '/slots')).json() as Array<{ is_processing?: boolean }>;
      return slots.some((slot) => slot.is_processing === true);
    };
    expect(await until(reading, 10_000, 20)).toBe(true);
    enough();
    expect(textOf((await reply).json())).toBe('read');
  });
});

describe('compaction marker', () => {
  it('is the text Claude Code puts in its summary request', () => {
    const req = claudeCodeRequest('auto-compaction-32k-window-8k-output', 9);
    expect(JSON.stringify(req)).toContain(COMPACTION_MARKER);
    expect(JSON.stringify(claudeCodeRequest('auto-compaction-32k-window-8k-output', 8))).not.toContain(COMPACTION_MARKER);
  });
});
