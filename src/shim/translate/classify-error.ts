/**
 * Decides what one backend error means for Claude Code and builds the
 * Anthropic answer. Shared by the HTTP-response and the stream-event
 * translators; owns the order of the checks (overflow, template, max_tokens,
 * loading, pass-through, re-envelope).
 */
import type { BackendKind } from '../../config/schema.js';
import { isRecord } from '../json/json-shape.js';
import {
  anthropicTypeForStatus,
  errorResponse,
  isAnthropicErrorType,
  type AnthropicErrorBody,
  type TranslatedError,
} from './anthropic-error.js';
import { findContextOverflow, overflowMessage } from './context-overflow.js';
import type { ErrorEnvelope } from './error-envelope.js';
import { findTemplateError, templateErrorMessage } from './template-error.js';

export interface ClassifyInput {
  /** HTTP status as Claude Code should see it (already 400–599). */
  readonly status: number;
  readonly envelope: ErrorEnvelope;
  /** The parsed body, kept as-is when it is already a valid Anthropic error. */
  readonly parsed: unknown;
  readonly backend: BackendKind;
  readonly endpoint: string | undefined;
  readonly retryAfter: string | undefined;
  readonly original: string;
}

// vLLM: "max_completion_tokens=40000 cannot be greater than max_model_len=max_total_tokens=32768. Please request fewer output tokens."
const MAX_TOKENS_TOO_LARGE = /max_(?:completion_)?tokens=?\s*\d+ cannot be greater than max_model_len/;
// llama.cpp: {"error":{"message":"Loading model","type":"unavailable_error","code":503}}
const LOADING = /loading model/i;
/**
 * llama.cpp 500s that fail the same way on every retry (a std::runtime_error
 * about the request, not the server): retrying them only adds three minutes.
 */
const DETERMINISTIC_SERVER_ERRORS = [
  /^\[json\.exception\./, // "[json.exception.parse_error.101] parse error at line 1, column 2: …"
  /'messages' is required/, // "'messages' is required"
  /requires --jinja flag/, // "tools param requires --jinja flag"
  /input is not supported/, // "image input is not supported - hint: …"
  /Cannot use both json_schema and grammar/,
  /prefill is incompatible with enable_thinking/, // "Assistant response prefill is incompatible with enable_thinking."
];

export function serverName(endpoint: string | undefined): string {
  return endpoint === undefined || endpoint === '' ? 'the model server' : `the model server '${endpoint}'`;
}

export function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Already what Claude Code expects: forwarded as it is (extra fields included). */
export function isAnthropicErrorBody(value: unknown): value is AnthropicErrorBody {
  return (
    isRecord(value) &&
    value.type === 'error' &&
    isRecord(value.error) &&
    isAnthropicErrorType(value.error.type) &&
    typeof value.error.message === 'string'
  );
}

export function loadingMessage(endpoint: string | undefined): string {
  return `${capitalised(serverName(endpoint))} is still loading its model (HTTP 503 "Loading model"); requests will work once it has finished.`;
}

function mappedMessage(input: ClassifyInput, message: string | undefined): string {
  const said = message === undefined || message.trim() === '' ? `HTTP ${input.status} with no error message` : message;
  if (input.status === 401) {
    return (
      `${said} (${serverName(input.endpoint)} rejected the API key: set api_key or api_key_env for this endpoint ` +
      `in models.yaml; vLLM accepts only Authorization: Bearer)`
    );
  }
  return said;
}

export function classifyError(input: ClassifyInput): TranslatedError {
  const { envelope, status, original } = input;
  const message = envelope.message ?? '';

  const overflow = findContextOverflow({
    type: envelope.type,
    message,
    nPromptTokens: envelope.nPromptTokens,
    nCtx: envelope.nCtx,
  });
  if (overflow !== undefined) {
    const text = overflowMessage(overflow);
    return errorResponse({ status: 400, type: 'invalid_request_error', message: text, kind: 'context_overflow', original });
  }

  const reason = findTemplateError(message);
  if (reason !== undefined) {
    const text = templateErrorMessage(reason, input.backend, status);
    return errorResponse({ status: 400, type: 'invalid_request_error', message: text, kind: 'template', original, noRetry: true });
  }

  if (MAX_TOKENS_TOO_LARGE.test(message)) {
    const text = `${message} (the requested output alone exceeds the model's window; lower CLAUDE_CODE_MAX_OUTPUT_TOKENS)`;
    return errorResponse({ status: 400, type: 'invalid_request_error', message: text, kind: 'max_tokens', original, noRetry: true });
  }

  if ((status === 503 || envelope.type === 'unavailable_error') && LOADING.test(message)) {
    return errorResponse({
      status: 529,
      type: 'overloaded_error',
      message: loadingMessage(input.endpoint),
      kind: 'loading',
      original,
      retryAfter: input.retryAfter,
    });
  }

  const parsed = input.parsed;
  if (isAnthropicErrorBody(parsed)) {
    const { type, message: text } = parsed.error;
    const response = errorResponse({ status, type, message: text, kind: 'passthrough', original, retryAfter: input.retryAfter });
    return { ...response, body: parsed };
  }

  return errorResponse({
    status,
    type: anthropicTypeForStatus(status),
    message: mappedMessage(input, envelope.message),
    kind: 'mapped',
    original,
    noRetry: status >= 500 && DETERMINISTIC_SERVER_ERRORS.some((re) => re.test(message)),
    retryAfter: input.retryAfter,
  });
}
