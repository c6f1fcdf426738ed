/**
 * Hostile and malformed input to the shim's pure parts, beyond what
 * test/shim/*.property covers: conversations whose user and assistant messages
 * have odd shapes (null, numbers, stray objects), and SSE streams of arbitrary
 * bytes split anywhere. The normaliser never throws, never drops a user or
 * assistant message or block, and leaves no text-only role:"system" message;
 * the stream rewriter and usage tracker never throw, and every error event that
 * leaves the shim is Anthropic-shaped.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normaliseRequest } from '../../src/shim/body/normalise.js';
import { isAnthropicErrorType } from '../../src/shim/translate/anthropic-error.js';
import { createStreamErrorRewriter } from '../../src/shim/translate/stream-error-rewriter.js';
import { createSseUsageTracker } from '../../src/shim/body/usage.js';

type Msg = { role: unknown; content?: unknown };

const oddContent = fc.oneof(
  fc.string(),
  fc.constant(null),
  fc.integer(),
  fc.array(fc.oneof(fc.record({ type: fc.constant('text'), text: fc.string() }), fc.jsonValue(), fc.record({ type: fc.string(), x: fc.jsonValue() })), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue(), { maxKeys: 3 }),
);
const userOrAssistant = fc.record({ role: fc.constantFrom('user', 'assistant'), content: oddContent });
/** The system messages Claude Code sends: a string, or text blocks (with or without cache_control). */
const textSystem = fc.record({
  role: fc.constant('system'),
  content: fc.oneof(
    fc.string(),
    fc.array(fc.record({ type: fc.constant('text'), text: fc.string(), cache_control: fc.constant({ type: 'ephemeral' }) }, { requiredKeys: ['type', 'text'] }), { minLength: 1, maxLength: 3 }),
  ),
});
const strayRole = fc.record({ role: fc.oneof(fc.constantFrom('tool', 'developer', ''), fc.integer()), content: oddContent });
const conversation = fc.array(fc.oneof({ weight: 4, arbitrary: userOrAssistant }, { weight: 2, arbitrary: textSystem }, { weight: 1, arbitrary: strayRole }), { maxLength: 10 });
const topSystem = fc.oneof(fc.constant(undefined), fc.string(), fc.array(fc.record({ type: fc.constant('text'), text: fc.string() }), { maxLength: 2 }));

describe('normaliser on odd conversations', () => {
  it('never throws; no text-only role:"system" is left; every non-system message and block survives, in order', () => {
    fc.assert(
      fc.property(conversation, topSystem, (messages, system) => {
        const input = { model: 'claude-x', max_tokens: 100, ...(system === undefined ? {} : { system }), messages };
        const result = normaliseRequest(input, { servedModel: 'qwen' });
        const out = (result.body as { messages: Msg[] }).messages;
        expect(out.some((m) => m.role === 'system')).toBe(false);
        const kept = messages.filter((m) => m.role !== 'system');
        expect(out.map((m) => m.role)).toEqual(kept.map((m) => m.role));
        out.forEach((m, i) => {
          const original = kept[i]!;
          if (m.content === original.content) return;
          // Only a fold target changes: its original blocks come first or last, unchanged, around <system> blocks.
          const blocks = m.content as unknown[];
          const originalBlocks = typeof original.content === 'string' ? [{ type: 'text', text: original.content }] : (original.content as unknown[]);
          const isFolded = (b: unknown): boolean => {
            const block = b as { type?: unknown; text?: unknown } | null; // read only; non-objects fail the checks below
            return typeof block === 'object' && block !== null && block.type === 'text' && typeof block.text === 'string' && block.text.startsWith('<system>');
          };
          const ours = blocks.filter((b) => !isFolded(b));
          expect(ours).toEqual(originalBlocks);
        });
      }),
      { numRuns: 400 },
    );
  });
});

const sseLine = fc.oneof(
  fc.constantFrom('event: error', 'event:error', 'event: message_start', 'event: message_delta', 'event: content_block_delta', ': ping', '', 'data: [DONE]', 'id: 7', 'retry: 10'),
  fc.jsonValue().map((v) => `data: ${JSON.stringify(v)}`),
  fc.record({ error: fc.jsonValue(), type: fc.jsonValue() }, { requiredKeys: [] }).map((v) => `data: ${JSON.stringify(v)}`),
  fc.constant('data: {"type":"message_start","message":{"usage":{"input_tokens":5}}}'),
  fc.string().map((s) => `data: ${s}`),
  fc.string(),
);
const eol = fc.constantFrom('\n', '\r\n');
/** A stream as bytes: SSE-ish lines, sometimes raw garbage (invalid UTF-8 included), cut into random chunks. */
const streamChunks = fc
  .tuple(fc.array(fc.tuple(sseLine, eol), { maxLength: 30 }), fc.uint8Array({ maxLength: 40 }), fc.array(fc.integer({ min: 1, max: 64 }), { maxLength: 20 }))
  .map(([lines, garbage, cuts]) => {
    const bytes = Buffer.concat([Buffer.from(lines.map(([l, e]) => l + e).join('')), Buffer.from(garbage)]);
    const chunks: Buffer[] = [];
    let at = 0;
    for (const n of cuts) {
      if (at >= bytes.length) break;
      chunks.push(bytes.subarray(at, at + n));
      at += n;
    }
    if (at < bytes.length) chunks.push(bytes.subarray(at));
    return chunks;
  });

describe('stream rewriter and usage tracker on arbitrary bytes', () => {
  it('never throw; every error event that leaves the shim carries an Anthropic error; other lines pass unchanged', () => {
    fc.assert(
      fc.property(streamChunks, fc.constantFrom('llama.cpp' as const, 'vllm' as const, 'other' as const), (chunks, backend) => {
        const rewriter = createStreamErrorRewriter({ backend, endpoint: 'gpu' });
        const tracker = createSseUsageTracker({ backend });
        const out: Buffer[] = [];
        for (const chunk of chunks) {
          tracker.push(chunk);
          out.push(rewriter.push(Buffer.from(chunk)));
        }
        out.push(rewriter.end());
        const usage = tracker.result();
        if (usage.error) expect(isAnthropicErrorType(usage.error.type)).toBe(true);

        const text = Buffer.concat(out).toString('latin1');
        const lines = text.split(/\r?\n/);
        for (let i = 0; i < lines.length; i++) {
          if (!/^event: ?error$/.test(lines[i]!)) continue;
          const data = lines[i + 1];
          if (data === undefined || !data.startsWith('data:')) continue; // an error event with no data: nothing to translate
          const parsed = JSON.parse(Buffer.from(data.replace(/^data: ?/, ''), 'latin1').toString('utf8')) as { type: string; error: { type: string; message: unknown } };
          expect(parsed.type).toBe('error');
          expect(isAnthropicErrorType(parsed.error.type)).toBe(true);
          expect(typeof parsed.error.message).toBe('string');
        }
        // Lines outside error events are forwarded byte for byte.
        const input = Buffer.concat(chunks).toString('latin1');
        const outside = (s: string): string[] => {
          const kept: string[] = [];
          let inError = false;
          for (const line of s.split('\n')) {
            if (/^event: ?error\r?$/.test(line)) inError = true;
            if (!inError) kept.push(line);
            if (line === '' || line === '\r') inError = false;
          }
          return kept;
        };
        const nonBlank = (lines: string[]): string[] => lines.filter((l) => l !== '' && l !== '\r');
        expect(nonBlank(outside(text))).toEqual(nonBlank(outside(input)));
      }),
      { numRuns: 500 },
    );
  });
});
