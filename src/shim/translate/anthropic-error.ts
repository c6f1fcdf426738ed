/**
 * The Anthropic error envelope the shim answers Claude Code with, and the
 * status ↔ error-type table. Owns the output shape of every translation; knows
 * nothing about how a backend phrases its errors.
 */

export const ANTHROPIC_ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'billing_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'api_error',
  'timeout_error',
  'overloaded_error',
] as const;
export type AnthropicErrorType = (typeof ANTHROPIC_ERROR_TYPES)[number];

export interface AnthropicErrorBody {
  readonly type: 'error';
  readonly error: { readonly type: AnthropicErrorType; readonly message: string };
}

/**
 * What happened, for logs and for the server's decisions:
 * - `context_overflow`: rewritten to `prompt is too long: N tokens > M maximum` (Claude Code compacts).
 * - `template`: the chat template refused the messages; deterministic.
 * - `max_tokens`: the requested output alone exceeds the window; deterministic.
 * - `loading`: the backend is still loading its model; retryable (529).
 * - `unreachable`: no HTTP answer from the backend.
 * - `passthrough`: already a valid Anthropic error; body unchanged.
 * - `mapped`: another JSON error shape, re-enveloped with the type matching its status.
 * - `non_json`: HTML or text body; an excerpt is kept.
 * - `refused`: an answer the shim will not hand on (a redirect, an encoding it cannot decode).
 * - `too_large`: Claude Code's request is over the shim's size limit; never forwarded.
 */
export type TranslatedErrorKind =
  | 'context_overflow'
  | 'template'
  | 'max_tokens'
  | 'loading'
  | 'unreachable'
  | 'passthrough'
  | 'mapped'
  | 'non_json'
  | 'refused'
  | 'too_large';

export interface TranslatedError {
  readonly status: number;
  /** content-type plus, where needed, x-should-retry / retry-after. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: AnthropicErrorBody;
  readonly kind: TranslatedErrorKind;
  /** The first 300 characters of what the backend said (empty for our own errors). */
  readonly original: string;
}

export const ORIGINAL_EXCERPT_CHARS = 300;

export function isAnthropicErrorType(value: unknown): value is AnthropicErrorType {
  return typeof value === 'string' && (ANTHROPIC_ERROR_TYPES as readonly string[]).includes(value);
}

/** The Anthropic error type Anthropic itself uses for an HTTP status. */
export function anthropicTypeForStatus(status: number): AnthropicErrorType {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 402:
      return 'billing_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 503:
    case 529:
      return 'overloaded_error';
    case 504:
      return 'timeout_error';
    default:
      return status >= 400 && status < 500 ? 'invalid_request_error' : 'api_error';
  }
}

/** An error status as Claude Code should see it: anything outside 400–599 becomes 502 (the backend misbehaved). */
export function errorStatus(status: number): number {
  return Number.isInteger(status) && status >= 400 && status <= 599 ? status : 502;
}

export function anthropicErrorBody(type: AnthropicErrorType, message: string): AnthropicErrorBody {
  return { type: 'error', error: { type, message } };
}

export interface ErrorResponseParts {
  readonly status: number;
  readonly type: AnthropicErrorType;
  readonly message: string;
  readonly kind: TranslatedErrorKind;
  readonly original: string;
  /** x-should-retry: false — Claude Code otherwise retries 5xx ten times over about three minutes. */
  readonly noRetry?: boolean;
  readonly retryAfter?: string | undefined;
}

export function errorResponse(parts: ErrorResponseParts): TranslatedError {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (parts.noRetry === true) headers['x-should-retry'] = 'false';
  if (parts.retryAfter !== undefined) headers['retry-after'] = parts.retryAfter;
  return {
    status: parts.status,
    headers,
    body: anthropicErrorBody(parts.type, parts.message),
    kind: parts.kind,
    original: parts.original.slice(0, ORIGINAL_EXCERPT_CHARS),
  };
}
