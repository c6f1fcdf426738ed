/**
 * Whatever a backend (or a proxy in front of it) sends, the translators answer
 * with a valid Anthropic error envelope and never throw.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAnthropicErrorType, ORIGINAL_EXCERPT_CHARS, type TranslatedError } from '../../../src/shim/translate/anthropic-error.js';
import { translateBackendError } from '../../../src/shim/translate/backend-error.js';
import { CONTEXT_OVERFLOW_WITHOUT_NUMBERS } from '../../../src/shim/translate/context-overflow.js';
import { translateStreamErrorData } from '../../../src/shim/translate/stream-error.js';

const backend = fc.constantFrom('llama.cpp' as const, 'vllm' as const, 'other' as const);
const errorish = fc.record(
  {
    code: fc.oneof(fc.integer({ min: -10, max: 700 }), fc.jsonValue()),
    message: fc.oneof(
      fc.string(),
      fc.jsonValue(),
      fc.constantFrom(
        'Loading model',
        'Jinja Exception: ',
        'Unable to generate parser for this template',
        'request (10 tokens) exceeds the available context size (20 tokens)',
        "This model's maximum context length is 5 tokens. However, you requested 9 output tokens and your prompt contains at least 3 input tokens",
        'max_completion_tokens=9 cannot be greater than max_model_len=8',
      ),
    ),
    type: fc.oneof(fc.string(), fc.constantFrom('exceed_context_size_error', 'unavailable_error', 'api_error', 'overloaded_error', '__proto__', 'constructor')),
    n_prompt_tokens: fc.jsonValue(),
    n_ctx: fc.jsonValue(),
  },
  { requiredKeys: [] },
);
const bodyText = fc.oneof(
  fc.string(),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  errorish.map((e) => JSON.stringify({ error: e })),
  errorish.map((e) => JSON.stringify({ type: 'error', error: e })),
  errorish.map((e) => JSON.stringify(e)),
  fc.jsonValue().map((v) => JSON.stringify({ error: v, detail: v })),
);

function expectValidEnvelope(result: TranslatedError): void {
  expect(Number.isInteger(result.status)).toBe(true);
  expect(result.status).toBeGreaterThanOrEqual(400);
  expect(result.status).toBeLessThanOrEqual(599);
  expect(result.headers['content-type']).toBe('application/json');
  expect(result.body.type).toBe('error');
  expect(isAnthropicErrorType(result.body.error.type)).toBe(true);
  expect(typeof result.body.error.message).toBe('string');
  expect(result.original.length).toBeLessThanOrEqual(ORIGINAL_EXCERPT_CHARS);
  if (result.kind === 'context_overflow') {
    const m = /^prompt is too long: (\d+) tokens > (\d+) maximum$/.exec(result.body.error.message);
    if (m === null) expect(result.body.error.message).toBe(CONTEXT_OVERFLOW_WITHOUT_NUMBERS);
    else expect(Number(m[1])).toBeGreaterThan(Number(m[2]));
  }
}

describe('error translators on random input', () => {
  it('translateBackendError never throws and always returns a valid Anthropic error', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 2000 }), bodyText, backend, fc.option(fc.string(), { nil: undefined }), (status, body, kind, endpoint) => {
        expectValidEnvelope(translateBackendError({ status, body, backend: kind, endpoint, headers: { 'retry-after': ['3'] } }));
      }),
      { numRuns: 500 },
    );
  });

  it('translateStreamErrorData never throws and always emits parseable Anthropic error data', () => {
    fc.assert(
      fc.property(bodyText, backend, (data, kind) => {
        const result = translateStreamErrorData(data, kind);
        const parsed: unknown = JSON.parse(result.data);
        expect(parsed).toEqual(result.body);
        expect(result.body.type).toBe('error');
        expect(isAnthropicErrorType(result.body.error.type)).toBe(true);
        expect(typeof result.body.error.message).toBe('string');
      }),
      { numRuns: 500 },
    );
  });
});
