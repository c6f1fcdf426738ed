import { describe, expect, it } from 'vitest';
import { normaliseRequest } from '../../src/shim/body/normalise.js';
import { blocksOf, capturedBody, view } from './rewrite/fixtures.js';

describe('normaliseRequest on captured Claude Code requests', () => {
  it('folds, rewrites the model and keeps every other field byte-for-byte (SDK session, plan mode on)', () => {
    const body = capturedBody('sdk-mid-conversation-system-messages', 'req-006.json');
    const before = JSON.stringify(body);
    const result = normaliseRequest(body, { servedModel: 'qwen3.6-27b' });

    expect(result.changed).toBe(true);
    expect(result.notes).toEqual({ foldedSystemMessages: 5, billingHashNeutralised: false, modelRewrittenFrom: 'local-model-2', toolTurnTextMoved: 1, toolIdsRewritten: 2 });
    expect(result.overflow).toBeUndefined();
    const out = view(result.body);
    expect(Object.keys(out)).toEqual(Object.keys(body));
    for (const key of ['system', 'tools', 'metadata', 'max_tokens', 'thinking', 'context_management', 'safeguards', 'output_config', 'stream']) {
      expect(key in body, key).toBe(true);
      expect(JSON.stringify(out[key]), key).toBe(JSON.stringify(body[key]));
    }
    expect(out.model).toBe('qwen3.6-27b');
    expect(JSON.stringify(body)).toBe(before);
  });

  it('keeps assistant thinking blocks with their signatures untouched', () => {
    const body = capturedBody('session-write-bash-3-turns', 'req-003.json');
    const assistant = view(body).messages.find((m) => m.role === 'assistant');
    if (assistant === undefined) throw new Error('fixture has no assistant turn');
    const blocks = blocksOf(assistant.content);
    blocks.unshift({ type: 'thinking', thinking: 'Plan: write the file.', signature: 'EqQBCkYIBRgCKkD…' });
    assistant.content = blocks;
    const out = view(normaliseRequest(body, { servedModel: 'local-model' }).body);
    const outAssistant = out.messages.find((m) => m.role === 'assistant');
    // The tool_use beside it gets a strict id (tool-call-ids.ts); the thinking block is the same object.
    expect(blocksOf(outAssistant?.content)[0]).toBe(blocks[0]);
  });

  it('returns the input object, changed false, when there is nothing to do', () => {
    const body = capturedBody('sdk-mid-conversation-system-messages', 'req-005.json');
    const result = normaliseRequest(body, { servedModel: 'local-model-2' });
    expect(result).toEqual({ body, changed: false, notes: { foldedSystemMessages: 0, billingHashNeutralised: false } });
    expect(result.body).toBe(body);
  });

  it('neutralises the billing hash, lowers max_tokens and strips fields when asked, reporting each', () => {
    const body = capturedBody('session-write-bash-3-turns', 'req-002.json');
    const header = view(body).system[0];
    if (header === undefined) throw new Error('fixture has no system[0]');
    header.text = `${String(header.text)} cch=9f3a1;`;
    const result = normaliseRequest(body, {
      servedModel: 'local-model',
      maxTokens: { window: 32768, promptTokens: 12000, enforce: true },
      stripFields: ['context_management'],
    });
    expect(result.notes).toEqual({
      foldedSystemMessages: 1,
      billingHashNeutralised: true,
      maxTokensLoweredFrom: 32000,
      strippedFields: ['context_management'],
      toolIdsRewritten: 2,
    });
    const out = view(result.body);
    expect(out.max_tokens).toBe(20768);
    expect('context_management' in out).toBe(false);
    expect(out.system[0]?.text).toMatch(/cch=00000;$/);
  });

  it('returns the overflow signal when the prompt alone does not fit, still normalising the rest', () => {
    const body = capturedBody('auto-compaction-32k-window-8k-output', 'req-008.json');
    const result = normaliseRequest(body, { servedModel: 'm', maxTokens: { window: 32768, promptTokens: 40000, enforce: true } });
    expect(result.overflow?.message).toBe('prompt is too long: 40000 tokens > 31744 maximum');
    expect(result.notes.foldedSystemMessages).toBe(1);
    expect(view(result.body).max_tokens).toBe(8192);
  });

  it.each([null, undefined, 'text', 42, [], [{ role: 'system' }], { messages: [1, null, { role: 'system', content: { text: 'x' } }] }])(
    'never throws on %j',
    (body) => {
      expect(() => normaliseRequest(body, { servedModel: 'm' })).not.toThrow();
    },
  );
});
