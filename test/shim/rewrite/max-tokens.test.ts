import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MIN_OUTPUT_TOKENS, clampMaxTokens, fitVllmWindow, promptGuessIfTight } from '../../../src/shim/rewrite/max-tokens.js';
import { capturedBody, view } from './fixtures.js';

const PTL = /^prompt is too long: (\d+) tokens > (\d+) maximum$/;

describe('clampMaxTokens (vLLM: prompt + max_tokens must fit max_model_len)', () => {
  it("lowers Claude Code's default 32000 so a short prompt fits a 32k server (openclaude#672 numbers)", () => {
    const body = capturedBody('session-write-bash-3-turns', 'req-001.json');
    expect(body.max_tokens).toBe(32000);
    const result = clampMaxTokens(body, { window: 32768, promptTokens: 769, enforce: true });
    expect(result).toMatchObject({ changed: true, loweredFrom: 32000, overflow: undefined });
    const out = view(result.body);
    expect(out.max_tokens).toBe(32768 - 769);
    expect(Object.keys(out)).toEqual(Object.keys(body));
    expect(body.max_tokens).toBe(32000);
  });

  it('leaves max_tokens alone when prompt + max_tokens already fits', () => {
    const body = capturedBody('auto-compaction-32k-window-8k-output', 'req-001.json');
    expect(body.max_tokens).toBe(8192);
    expect(clampMaxTokens(body, { window: 32768, promptTokens: 20000, enforce: true }).body).toBe(body);
  });

  it('says the prompt is too long when less than the output floor is left, with N > M', () => {
    const body = capturedBody('auto-compaction-32k-window-8k-output', 'req-005.json');
    const result = clampMaxTokens(body, { window: 32768, promptTokens: 32000, enforce: true });
    expect(result.body).toBe(body);
    expect(result.overflow).toEqual({
      promptTokens: 32000,
      maxPromptTokens: 32768 - DEFAULT_MIN_OUTPUT_TOKENS,
      message: `prompt is too long: 32000 tokens > ${32768 - DEFAULT_MIN_OUTPUT_TOKENS} maximum`,
    });
  });

  it("uses the request's own max_tokens as the floor when it is smaller (setModel probe, max_tokens 1)", () => {
    const body = capturedBody('sdk-mid-conversation-system-messages', 'req-005.json');
    expect(clampMaxTokens(body, { window: 4096, promptTokens: 4095, enforce: true }).body).toBe(body);
    expect(clampMaxTokens(body, { window: 4096, promptTokens: 4096, enforce: true }).overflow?.message).toBe(
      'prompt is too long: 4096 tokens > 4095 maximum',
    );
  });

  it('reserves at most a quarter of a tiny window for output (-c 1024)', () => {
    const body = { max_tokens: 32000 };
    expect(clampMaxTokens(body, { window: 1024, promptTokens: 700, enforce: true }).body).toEqual({ max_tokens: 324 });
    expect(clampMaxTokens(body, { window: 1024, promptTokens: 900, enforce: true }).overflow?.message).toBe(
      'prompt is too long: 900 tokens > 768 maximum',
    );
  });

  it('does nothing for llama.cpp (enforce: false), which only checks the prompt', () => {
    const body = { max_tokens: 32000 };
    expect(clampMaxTokens(body, { window: 8192, promptTokens: 9000, enforce: false })).toEqual({
      body,
      changed: false,
      loweredFrom: undefined,
      overflow: undefined,
    });
  });

  it.each([
    [{ max_tokens: '32000' }, { window: 100, promptTokens: 10 }],
    [{}, { window: 100, promptTokens: 10 }],
    [{ max_tokens: 0 }, { window: 100, promptTokens: 10 }],
    [{ max_tokens: 500 }, { window: Number.NaN, promptTokens: 10 }],
    [{ max_tokens: 500 }, { window: 100, promptTokens: -1 }],
    [null, { window: 100, promptTokens: 10 }],
  ])('leaves %j alone with %j', (body, numbers) => {
    expect(clampMaxTokens(body, { ...numbers, enforce: true }).body).toBe(body);
  });

  it('property: the result fits the window, or it signals an overflow whose N > M', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200_000 }),
        fc.integer({ min: 0, max: 300_000 }),
        fc.integer({ min: 1, max: 200_000 }),
        fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: undefined }),
        (maxTokens, promptTokens, window, minOutputTokens) => {
          const result = clampMaxTokens({ max_tokens: maxTokens }, { window, promptTokens, enforce: true, minOutputTokens });
          if (result.overflow !== undefined) {
            const [, n, m] = PTL.exec(result.overflow.message) ?? [];
            expect(Number(n)).toBeGreaterThan(Number(m));
            expect(Number(n)).toBe(promptTokens);
          } else {
            const out = Number(view(result.body).max_tokens);
            expect(out + promptTokens).toBeLessThanOrEqual(window);
            expect(out).toBeGreaterThanOrEqual(1);
            expect(out).toBeLessThanOrEqual(maxTokens);
          }
        },
      ),
    );
  });
});

describe('the vLLM window rule (guess, then count only when tight, then fit)', () => {
  const body = capturedBody('session-write-bash-3-turns', 'req-001.json');
  const bytes = Buffer.byteLength(JSON.stringify(body));

  it('asks for a count when a first request may not fit: 2 bytes per token, pessimistic', () => {
    expect(promptGuessIfTight(body, { window: 32_768, requestBytes: bytes, lastPrompt: undefined })).toBe(bytes / 2);
  });

  it('needs no count when the last prompt plus what the body grew by leaves room for max_tokens', () => {
    const lastPrompt = { tokens: 700, bytes: bytes - 1000 };
    expect(promptGuessIfTight(body, { window: 64_000, requestBytes: bytes, lastPrompt })).toBeUndefined();
    // The same body on a 32k server: 700 + 500 + 32000 > 32768.
    expect(promptGuessIfTight(body, { window: 32_768, requestBytes: bytes, lastPrompt })).toBe(1200);
  });

  it('needs nothing for a body without a numeric max_tokens', () => {
    expect(promptGuessIfTight({ messages: [] }, { window: 10, requestBytes: 1_000_000, lastPrompt: undefined })).toBeUndefined();
    expect(promptGuessIfTight({ max_tokens: '32000' }, { window: 10, requestBytes: 1_000_000, lastPrompt: undefined })).toBeUndefined();
  });

  it('lowers max_tokens and says so for requests.jsonl, naming whether the prompt was counted or estimated', () => {
    const counted = fitVllmWindow(body, 32_768, { tokens: 12_000, counted: true });
    expect(view(counted.body).max_tokens).toBe(32_768 - 12_000);
    expect(counted.note).toBe('max_tokens lowered from 32000 to fit 32768 (counted prompt)');
    expect(fitVllmWindow(body, 32_768, { tokens: 12_000.4, counted: false }).note).toBe('max_tokens lowered from 32000 to fit 32768 (estimated prompt)');
  });

  it('leaves a body that fits as it is, and says "prompt is too long" for one whose prompt alone does not fit', () => {
    expect(fitVllmWindow(body, 64_000, { tokens: 1000, counted: true })).toEqual({ body, note: undefined, overflow: undefined });
    const over = fitVllmWindow(body, 8192, { tokens: 12_000, counted: true });
    expect(over.body).toBe(body);
    expect(over.note).toBeUndefined();
    expect(over.overflow?.message).toBe(`prompt is too long: 12000 tokens > ${8192 - DEFAULT_MIN_OUTPUT_TOKENS} maximum`);
  });
});
