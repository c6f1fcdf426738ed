/**
 * strictQwen: the real Qwen3.5 template decides acceptance. A raw Claude Code
 * request (mid-conversation role:"system") fails exactly as the captured
 * servers fail; the same request with that message folded into the user turn
 * passes.
 */
import { describe, expect, it } from 'vitest';
import { claudeCodeRequest, containing, parseSse, readHttpFixture, request, simpleBody, simulatorPerTest } from './fixture-io.js';

const start = simulatorPerTest({ flavor: 'llama.cpp', strictQwen: true });

/** Moves every role:"system" message into the preceding user message as <system-reminder> text blocks. */
function foldSystemIntoUser(body: Record<string, unknown>): Record<string, unknown> {
  const out: { role: unknown; content: unknown[] }[] = [];
  const messages: unknown[] = Array.isArray(body['messages']) ? body['messages'] : [];
  for (const m of messages) {
    if (typeof m !== 'object' || m === null || !('role' in m) || !('content' in m)) continue;
    const content: unknown = m.content;
    const blocks: unknown[] = typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
    const prev = out.at(-1);
    if (m.role === 'system' && prev !== undefined) {
      for (const b of blocks) prev.content.push({ type: 'text', text: `<system-reminder>\n${JSON.stringify(b)}\n</system-reminder>` });
    } else {
      out.push({ role: m.role, content: blocks });
    }
  }
  return { ...body, messages: out };
}

const RAW = (): Record<string, unknown> => claudeCodeRequest('session-write-bash-3-turns', 1);

describe('strictQwen template acceptance', () => {
  it('rejects the raw Claude Code request exactly like the August 2026 build (500 server_error)', async () => {
    const s = await start();
    const f = readHttpFixture('err-system-mid.http');
    for (const stream of [false, true]) {
      const r = await request(s.url, '/v1/messages?beta=true', { body: { ...RAW(), stream } });
      expect([r.status, r.text]).toEqual([f.status, f.text]);
    }
    const count = await request(s.url, '/v1/messages/count_tokens?beta=true', { body: RAW() });
    expect([count.status, count.text]).toEqual([f.status, f.text]);
  });

  it('rejects it exactly like b9553 (400 "Unable to generate parser for this template")', async () => {
    const s = await start({ llamaBuild: 'b9553' });
    const r = await request(s.url, '/v1/messages?beta=true', { body: RAW() });
    const f = readHttpFixture('b9553', 'err-system-mid.http');
    expect([r.status, r.text]).toEqual([f.status, f.text]);
  });

  it('rejects before queueing: no slot is taken and nothing is in flight', async () => {
    const s = await start();
    await request(s.url, '/v1/messages', { body: RAW() });
    expect(s.requests[0]?.slot).toBeUndefined();
    expect(s.stats).toMatchObject({ peakInFlight: 0, completed: 0 });
  });

  it('accepts the same request once the system message is folded into the user turn', async () => {
    const s = await start({ script: [{ text: 'I will create the file.', toolUse: { name: 'Write', input: { file_path: 'hello.txt', content: 'hello world' } } }] });
    const folded = foldSystemIntoUser(RAW());
    const r = await request(s.url, '/v1/messages?beta=true', { body: folded });
    expect(r.status).toBe(200);
    const events = parseSse(r.text);
    expect(events.at(-2)?.data).toMatchObject({ delta: { stop_reason: 'tool_use' } });
    // The rendered 50 kB request is ~12k tokens at 4 chars/token.
    expect(s.requests[0]?.promptTokens).toBeGreaterThan(8000);
    const later = foldSystemIntoUser(claudeCodeRequest('session-write-bash-3-turns', 3));
    expect((await request(s.url, '/v1/messages?beta=true', { body: { ...later, stream: false } })).status).toBe(200);
    expect(s.requests[1]?.cachedTokens).toBeGreaterThan(8000);
  });

  it('applies the other template guards (empty messages → "No messages provided.")', async () => {
    const s = await start({ llamaBuild: 'b9553' });
    const r = await request(s.url, '/v1/messages', { body: simpleBody({ messages: [] }) });
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ error: { type: 'invalid_request_error', message: containing('Jinja Exception: No messages provided.') } });
  });

  it('without strictQwen the raw request is accepted (lenient rendering)', async () => {
    const s = await start({ strictQwen: false });
    expect((await request(s.url, '/v1/messages?beta=true', { body: RAW() })).status).toBe(200);
  });
});
