/**
 * The simulator (test/sim) against a real llama-server on the same requests: status codes, content types,
 * body shapes, error bodies, SSE event order and usage fields. Both serve the always-EOS tiny model's id with
 * the real Qwen3.5 template, 1 slot of 4096 tokens. Values that differ by nature (ids, token counts, timings,
 * generated text) are compared by type; everything a client branches on is compared by value.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../sim/index.js';
import type { LlamaServer } from './llama-server.js';
import { startTestServer } from './server-for-test.js';
import { templateWithAnotherAssistantHeader } from './templates.js';

const SLOT_CONTEXT = 4096;
const API_KEY = 'k-compare';

/** Keys whose values a client reads as facts: compared exactly. */
const EXACT = new Set(['type', 'role', 'stop_reason', 'stop_sequence', 'code', 'object', 'owned_by', 'status', 'total_slots', 'n_ctx', 'is_processing', 'id_slot', 'message']);

/** Values replaced by their type (what may differ between two correct servers). */
function shape(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => shape(v, key));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, shape(v, k)]),
    );
  }
  if (EXACT.has(key)) return value;
  return value === null ? null : typeof value;
}

interface Exchange {
  status: number;
  contentType: string;
  body: unknown;
}

function parseSse(text: string): Array<{ event: string; data: unknown }> {
  return text
    .split('\n\n')
    .filter((chunk) => chunk.trim() !== '' && !chunk.startsWith(':'))
    .map((chunk) => {
      const event = /^event: (.*)$/m.exec(chunk)?.[1] ?? '';
      const data = /^data: (.*)$/m.exec(chunk)?.[1] ?? 'null';
      return { event, data: JSON.parse(data) as unknown };
    });
}

async function exchange(base: string, path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Exchange> {
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    body: init.body,
  });
  const contentType = (res.headers.get('content-type') ?? '').split(';')[0] ?? '';
  const text = await res.text();
  let body: unknown = text;
  if (contentType === 'text/event-stream') body = parseSse(text);
  else if (contentType === 'application/json') body = JSON.parse(text);
  return { status: res.status, contentType, body };
}

const user = (text: string): Record<string, unknown> => ({ role: 'user', content: text });
const messagesBody = (extra: Record<string, unknown>): string => JSON.stringify({ model: 'tiny-qwen', max_tokens: 32, messages: [user('Say hi.')], ...extra });

/** The same requests for both servers; each case's result is compared as a shape. */
const CASES: Record<string, { path: string; body?: string; headers?: Record<string, string>; compare?: 'shape' | 'names' | 'events' }> = {
  'health': { path: '/health' },
  'models': { path: '/v1/models' },
  'slots': { path: '/slots' },
  'metrics names': { path: '/metrics', compare: 'names' },
  'message, not streamed': { path: '/v1/messages', body: messagesBody({}) },
  'message, streamed': { path: '/v1/messages', body: messagesBody({ stream: true }), compare: 'events' },
  'message with a system prompt and thinking off': { path: '/v1/messages', body: messagesBody({ system: 'Be brief.', chat_template_kwargs: { enable_thinking: false } }) },
  'mid-conversation system message': { path: '/v1/messages', body: messagesBody({ messages: [user('Hi.'), { role: 'system', content: 'env' }] }) },
  'mid-conversation system message, streamed': { path: '/v1/messages', body: messagesBody({ stream: true, messages: [user('Hi.'), { role: 'system', content: 'env' }] }) },
  'no messages': { path: '/v1/messages', body: messagesBody({ messages: [] }) },
  'missing messages': { path: '/v1/messages', body: JSON.stringify({ model: 'tiny-qwen', max_tokens: 8 }) },
  'unknown path': { path: '/v1/nothing-here' },
  'count_tokens': { path: '/v1/messages/count_tokens', body: messagesBody({}) },
  'count_tokens, mid-conversation system': { path: '/v1/messages/count_tokens', body: messagesBody({ messages: [user('Hi.'), { role: 'system', content: 'env' }] }) },
};

/** Malformed bodies: every failure point of nlohmann's parser, whose words the server returns as a 500. */
const MALFORMED = ['{"model": "tiny-qwen",', '{b', '{"a" 1}', '{"a": 1 "b": 2}', '[1 2]', '{"a": }', '{"a": tru}', '{"a": 1}x', '{"a": "open', '', '{"a": [1,]}', '{"a": 1,}', '{1: 2}', '{"a": -}'];
for (const body of MALFORMED) CASES[`malformed JSON ${JSON.stringify(body)}`] = { path: '/v1/messages', body };

/** A prompt well over 4096 tokens on either tokenizer. */
const OVERFLOW = messagesBody({ messages: [user('lorem ipsum dolor sit amet '.repeat(1500))] });

function comparable(ex: Exchange, compare: 'shape' | 'names' | 'events' = 'shape'): unknown {
  if (compare === 'names') {
    const names = String(ex.body).split('\n').filter((l) => l.startsWith('llamacpp:')).map((l) => l.split(/[\s{]/)[0]).sort();
    return { status: ex.status, names };
  }
  if (compare === 'events') {
    const events = ex.body as Array<{ event: string; data: unknown }>;
    return { status: ex.status, contentType: ex.contentType, events: events.map((e) => ({ event: e.event, data: shape(e.data) })) };
  }
  return { status: ex.status, contentType: ex.contentType, body: shape(ex.body) };
}

describe('simulator vs real llama-server on the same requests', () => {
  let real: LlamaServer;
  let sim: Simulator;
  let realKeyed: LlamaServer;
  let simKeyed: Simulator;

  beforeAll(async () => {
    real = await startTestServer({ model: 'eos', parallel: 1, slotContext: SLOT_CONTEXT });
    realKeyed = await startTestServer({ model: 'eos', parallel: 1, slotContext: SLOT_CONTEXT, apiKey: API_KEY });
    const options = { flavor: 'llama.cpp', llamaBuild: 'sep2026', slots: 1, context: SLOT_CONTEXT, strictQwen: true, modelId: real.modelId, script: [{}] } as const;
    sim = await startSimulator(options);
    simKeyed = await startSimulator({ ...options, apiKey: API_KEY });
  });

  afterAll(async () => {
    await Promise.all([real?.close(), realKeyed?.close(), sim?.close(), simKeyed?.close()]);
  });

  it.each(Object.entries(CASES))('%s', async (_name, c) => {
    const fromReal = await exchange(real.url, c.path, c);
    const fromSim = await exchange(sim.url, c.path, c);
    expect(comparable(fromSim, c.compare)).toEqual(comparable(fromReal, c.compare));
  });

  it('context overflow: same status, error type and fields; n_ctx the same, message in the same words', async () => {
    for (const stream of [false, true]) {
      const body = stream ? OVERFLOW.replace('{', '{"stream":true,') : OVERFLOW;
      const fromReal = await exchange(real.url, '/v1/messages', { body });
      const fromSim = await exchange(sim.url, '/v1/messages', { body });
      const normalise = (ex: Exchange): unknown => {
        const error = (ex.body as { error: Record<string, unknown> }).error;
        return { status: ex.status, error: { ...shape(error) as object, message: String(error.message).replace(/\(\d+ tokens\) exceeds/, '(N tokens) exceeds'), n_ctx: error.n_ctx } };
      };
      expect(normalise(fromSim)).toEqual(normalise(fromReal));
    }
  });

  it('--api-key: the same 401 without a key, the same public paths', async () => {
    for (const path of ['/v1/messages', '/props', '/slots', '/metrics', '/health', '/v1/models']) {
      const init = path === '/v1/messages' ? { body: messagesBody({}) } : {};
      const fromReal = await exchange(realKeyed.url, path, init);
      const fromSim = await exchange(simKeyed.url, path, init);
      expect({ path, status: fromSim.status, body: fromSim.status === 401 ? fromSim.body : undefined }).toEqual({
        path,
        status: fromReal.status,
        body: fromReal.status === 401 ? fromReal.body : undefined,
      });
    }
  });

  it("the output parser's error: inside a 200 stream, and as a 500 when not streamed, in the same words", async () => {
    const parserFails = await startTestServer({ model: 'eos', parallel: 1, slotContext: SLOT_CONTEXT, extraArgs: ['--chat-template-file', templateWithAnotherAssistantHeader()] });
    const message = 'The model produced output that does not match the expected peg-native format';
    const simParserFails = await startSimulator({ flavor: 'llama.cpp', llamaBuild: 'sep2026', slots: 1, context: SLOT_CONTEXT, modelId: parserFails.modelId, script: () => ({ streamError: { message, afterEvents: 0 } }) });
    try {
      const tools = [{ name: 'Bash', description: 'Run a command.', input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } }];
      for (const stream of [true, false]) {
        const init = { body: messagesBody({ stream, tools }) };
        const fromReal = await exchange(parserFails.url, '/v1/messages', init);
        expect(JSON.stringify(fromReal.body)).toContain(message);
        const fromSim = await exchange(simParserFails.url, '/v1/messages', init);
        expect(comparable(fromSim, stream ? 'events' : 'shape')).toEqual(comparable(fromReal, stream ? 'events' : 'shape'));
      }
    } finally {
      await Promise.all([parserFails.close(), simParserFails.close()]);
    }
  });
});
