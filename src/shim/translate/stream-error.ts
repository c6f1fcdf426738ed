/**
 * Translates the data of one SSE `event: error` into Anthropic's shape.
 *
 * Why: once llama.cpp has sent HTTP 200 it reports failures as
 * `event: error` / `data: {"code":500,"message":"…","type":"server_error"}`,
 * not Anthropic's `{"type":"error","error":{"type","message"}}`, and vLLM uses
 * its own `internal_error` type (docs/backends.md §2.4, §4). Claude Code decides
 * from `error.type` whether a stream error is worth retrying.
 */
import type { BackendKind } from '../../config/schema.js';
import { anthropicErrorBody, type AnthropicErrorBody, type TranslatedErrorKind } from './anthropic-error.js';
import { classifyError } from './classify-error.js';
import { readErrorEnvelope, statusForEnvelope } from './error-envelope.js';

export interface StreamErrorTranslation {
  /** The data to send: the input string itself when it was already fine. */
  readonly data: string;
  readonly changed: boolean;
  readonly kind: TranslatedErrorKind;
  readonly body: AnthropicErrorBody;
}

const EXCERPT_CHARS = 200;

/**
 * Anthropic-shaped data for one stream error event's data (the `data:` lines
 * joined with "\n"). Overflow and template errors get the same wording as in
 * a plain HTTP error. Never throws.
 */
export function translateStreamErrorData(data: string, backend: BackendKind, endpoint?: string): StreamErrorTranslation {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    // A non-JSON error payload: say what it was instead of forwarding something Claude Code cannot parse.
    const body = anthropicErrorBody('api_error', `The model server sent a stream error that is not JSON: ${data.slice(0, EXCERPT_CHARS)}`);
    return { data: JSON.stringify(body), changed: true, kind: 'non_json', body };
  }
  const envelope = readErrorEnvelope(parsed);
  const translated = classifyError({
    status: statusForEnvelope(envelope),
    envelope,
    parsed,
    backend,
    endpoint,
    retryAfter: undefined,
    original: data,
  });
  if (translated.kind === 'passthrough') return { data, changed: false, kind: 'passthrough', body: translated.body };
  return { data: JSON.stringify(translated.body), changed: true, kind: translated.kind, body: translated.body };
}
