/**
 * The shim reads and rewrites only the top-level values its rules need and
 * copies every other byte as Claude Code sent it: same output as a full
 * parse + stringify on every captured request, and the untouched bytes kept
 * exactly when the input is not in JSON.stringify's own form.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readBodyView, writeBody } from '../../src/shim/json/json-body.js';
import { normaliseRequest } from '../../src/shim/body/normalise.js';
import { capturedSession } from './rewrite/fixtures.js';

const SESSIONS = ['auto-compaction-32k-window-8k-output', 'sdk-mid-conversation-system-messages', 'session-8-tool-turns', 'session-write-bash-3-turns'];

describe('readBodyView / writeBody', () => {
  const captured = SESSIONS.flatMap((s) => capturedSession(s));

  it('gives the same bytes as parse + normalise + stringify on every captured Claude Code request', () => {
    expect(captured.length).toBeGreaterThanOrEqual(30);
    for (const { body } of captured) {
      const raw = Buffer.from(JSON.stringify(body));
      const view = readBodyView(raw);
      expect(view).toBeDefined();
      const spliced = writeBody(view!, normaliseRequest(view!.fields, { servedModel: 'qwen' }).body as Record<string, unknown>);
      const whole = Buffer.from(JSON.stringify(normaliseRequest(JSON.parse(raw.toString('utf8')), { servedModel: 'qwen' }).body));
      expect(spliced.equals(whole)).toBe(true);
      expect(view!.toolCount).toBe((body as { tools?: unknown[] }).tools?.length);
    }
  });

  it('keeps untouched values byte for byte, whitespace and escapes included', () => {
    const raw = Buffer.from('{ "model" : "claude-x",\n  "tools": [ {"name":"\\u0041", "n": 1.50} ],\n  "messages": [{"role":"user","content":"hi"}], "metadata":{"a" : true} }');
    const view = readBodyView(raw)!;
    expect(view.toolCount).toBe(1);
    const out = writeBody(view, { ...view.fields, model: 'qwen' }).toString('utf8');
    expect(out).toBe('{"model":"qwen","tools":[ {"name":"\\u0041", "n": 1.50} ],"messages":[{"role":"user","content":"hi"}],"metadata":{"a" : true}}');
    expect(JSON.parse(out)).toEqual({ ...JSON.parse(raw.toString('utf8')), model: 'qwen' });
    // Nothing changed: the very same buffer goes on.
    expect(writeBody(view, view.fields)).toBe(raw);
  });

  it('adds a key a rule created (a system message folded into a missing system)', () => {
    const raw = Buffer.from('{"model":"m","messages":[{"role":"system","content":"be brief"}]}');
    const view = readBodyView(raw)!;
    const normalised = normaliseRequest(view.fields, { servedModel: 'm' });
    const out = JSON.parse(writeBody(view, normalised.body as Record<string, unknown>).toString('utf8')) as Record<string, unknown>;
    expect(out).toEqual(normalised.body);
    expect(out.system).toBeDefined();
  });

  it('declines what is not one JSON object, so the backend answers it', () => {
    for (const text of ['', '[]', '{"a":1', '{"a":1}{"b":2}', '{"a" 1}', 'null', '{"a":}']) expect(readBodyView(Buffer.from(text)), text).toBeUndefined();
  });

  it('agrees with JSON.parse on any object (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), (obj, model) => {
        const raw = Buffer.from(JSON.stringify(obj));
        const view = readBodyView(raw);
        expect(view).toBeDefined();
        const out = writeBody(view!, { ...view!.fields, model });
        expect(JSON.parse(out.toString('utf8'))).toEqual(JSON.parse(JSON.stringify({ ...obj, model })));
      }),
    );
  });
});
