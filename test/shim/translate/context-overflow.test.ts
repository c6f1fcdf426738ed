import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONTEXT_OVERFLOW_WITHOUT_NUMBERS,
  contextOverflowError,
  findContextOverflow,
  overflowMessage,
} from '../../../src/shim/translate/context-overflow.js';

/** Claude Code's own parser for the message (from the 2.1.332 binary). */
function claudeCodeGap(message: string): number | undefined {
  const m = /prompt is too long[^0-9]*(\d+)\s*tokens?\s*>\s*(\d+)/i.exec(message);
  return m === null ? undefined : Number(m[1]) - Number(m[2]);
}

describe('findContextOverflow', () => {
  it.each([
    ['llama.cpp input variant', 'input (5000 tokens) is larger than the max context size (4096 tokens). skipping', { promptTokens: 5000, maxPromptTokens: 4095 }],
    ['OpenAI legacy wording', "This model's maximum context length is 4097 tokens. However, you requested 4200 tokens (3200 in the messages, 1000 in the completion).", { promptTokens: 3200, maxPromptTokens: 3097 }],
    ['vLLM with only the window', "This model's maximum context length is 8192 tokens.", { promptTokens: undefined, maxPromptTokens: undefined }],
  ])('%s', (_label, message, expected) => {
    expect(findContextOverflow({ message })).toEqual(expected);
  });

  it('uses llama.cpp n_prompt_tokens/n_ctx over the message, and keeps N > M when the prompt equals n_ctx', () => {
    expect(findContextOverflow({ type: 'exceed_context_size_error', message: 'x', nPromptTokens: 4096, nCtx: 4096 })).toEqual({
      promptTokens: 4096,
      maxPromptTokens: 4095,
    });
  });

  it('ignores errors about something else, including Anthropic\'s own wording', () => {
    for (const message of ['prompt is too long: 40000 tokens > 32768 maximum', 'Invalid API Key', 'Loading model', '']) {
      expect(findContextOverflow({ message })).toBeUndefined();
    }
  });

  it('contextOverflowError builds the 400 Claude Code compacts on, and repairs N ≤ M', () => {
    expect(contextOverflowError(40000, 32768)).toEqual({
      status: 400,
      headers: { 'content-type': 'application/json' },
      body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 40000 tokens > 32768 maximum' } },
      kind: 'context_overflow',
      original: '',
    });
    expect(contextOverflowError(100, 100).body.error.message).toBe('prompt is too long: 101 tokens > 100 maximum');
  });

  it('the message without numbers gives Claude Code no gap to misread', () => {
    expect(overflowMessage({ promptTokens: undefined, maxPromptTokens: undefined })).toBe(CONTEXT_OVERFLOW_WITHOUT_NUMBERS);
    expect(claudeCodeGap(CONTEXT_OVERFLOW_WITHOUT_NUMBERS)).toBeUndefined();
  });

  it('property: every backend wording with numbers yields a positive gap for Claude Code', () => {
    const n = fc.integer({ min: 0, max: 2_000_000 });
    const wording = fc.oneof(
      fc.tuple(n, n).map(([p, c]) => ({ message: `request (${p} tokens) exceeds the available context size (${c} tokens), try increasing it` })),
      fc.tuple(n, n).map(([p, c]) => ({ type: 'exceed_context_size_error', message: 'x', nPromptTokens: p, nCtx: c })),
      fc.tuple(n, n, n, fc.boolean()).map(([l, r, p, atLeast]) => ({
        message: `This model's maximum context length is ${l} tokens. However, you requested ${r} output tokens and your prompt contains ${atLeast ? 'at least ' : ''}${p} input tokens, for a total of ${p + r} tokens.`,
      })),
      fc.tuple(n, n, n, n).map(([l, r, chars, bound]) => ({
        message: `This model's maximum context length is ${l} tokens. However, you requested ${r} output tokens and your prompt contains ${chars} characters (more than ${bound * 4} characters, which is the upper bound for ${bound} input tokens).`,
      })),
    );
    fc.assert(
      fc.property(wording, (facts) => {
        const found = findContextOverflow(facts);
        expect(found).toBeDefined();
        const gap = claudeCodeGap(overflowMessage(found ?? { promptTokens: undefined, maxPromptTokens: undefined }));
        expect(gap).toBeGreaterThan(0);
      }),
    );
  });
});
