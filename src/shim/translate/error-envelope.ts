/**
 * Reads the facts (type, message, code, llama.cpp's token counts) out of
 * whatever error JSON a backend sent. Owns the knowledge of the shapes seen:
 * - Anthropic `{"type":"error","error":{"type","message"}}` (vLLM /v1/messages);
 * - nested `{"error":{"code","message","type",…}}` (llama.cpp, OpenAI-style vLLM validation);
 * - flat `{"code","message","type"}` (llama.cpp `event: error` data);
 * - `{"error":"Unauthorized"}` (vLLM auth);
 * - FastAPI `{"detail":…}` (422 validation).
 */
import { isRecord } from '../json/json-shape.js';

export type EnvelopeShape = 'anthropic' | 'nested' | 'flat' | 'string_error' | 'detail' | 'other';

export interface ErrorEnvelope {
  readonly shape: EnvelopeShape;
  readonly type: string | undefined;
  /** Undefined when the body carries no message we could find. */
  readonly message: string | undefined;
  /** The status the backend put in the body (llama.cpp `code`). */
  readonly code: number | undefined;
  readonly nPromptTokens: unknown;
  readonly nCtx: unknown;
}

const MAX_DESCRIBED_CHARS = 2000;

/** A short text for a value that should have been a message string. */
function describe(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return `${value}`;
  // JSON.parse output is never cyclic and has no BigInt, so this cannot throw.
  return JSON.stringify(value).slice(0, MAX_DESCRIBED_CHARS);
}

function httpCode(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599 ? value : undefined;
}

/** FastAPI: `[{"loc":["body","messages",1,"role"],"msg":"Input should be 'user' or 'assistant'"}]` → `messages.1.role: Input should…`. */
function detailMessage(detail: unknown): string | undefined {
  if (!Array.isArray(detail)) return describe(detail);
  const lines = detail.map((item) => {
    if (!isRecord(item) || typeof item.msg !== 'string') return describe(item) ?? '';
    const loc = Array.isArray(item.loc) ? item.loc.filter((part, i) => !(i === 0 && part === 'body')) : [];
    const where = loc.map((part) => describe(part) ?? '').join('.');
    return where === '' ? item.msg : `${where}: ${item.msg}`;
  });
  return lines.join('\n');
}

const NONE = { code: undefined, nPromptTokens: undefined, nCtx: undefined };

export function readErrorEnvelope(parsed: unknown): ErrorEnvelope {
  if (!isRecord(parsed)) {
    return { shape: 'other', type: undefined, message: describe(parsed), ...NONE };
  }
  const error = parsed.error;
  if (isRecord(error)) {
    return {
      shape: parsed.type === 'error' ? 'anthropic' : 'nested',
      type: typeof error.type === 'string' ? error.type : undefined,
      message: describe(error.message),
      code: httpCode(error.code),
      nPromptTokens: error.n_prompt_tokens,
      nCtx: error.n_ctx,
    };
  }
  if (typeof error === 'string') return { shape: 'string_error', type: undefined, message: error, ...NONE };
  if (Object.hasOwn(parsed, 'detail')) return { shape: 'detail', type: undefined, message: detailMessage(parsed.detail), ...NONE };
  if (typeof parsed.message === 'string') {
    return {
      shape: 'flat',
      type: typeof parsed.type === 'string' ? parsed.type : undefined,
      message: parsed.message,
      code: httpCode(parsed.code),
      nPromptTokens: parsed.n_prompt_tokens,
      nCtx: parsed.n_ctx,
    };
  }
  return { shape: 'other', type: undefined, message: undefined, ...NONE };
}

/** Backend error type names (llama.cpp, vLLM, OpenAI) → the HTTP status they stand for. */
const STATUS_BY_TYPE: ReadonlyMap<string, number> = new Map(Object.entries({
  invalid_request_error: 400,
  exceed_context_size_error: 400,
  BadRequestError: 400,
  'Bad Request': 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  NotFoundError: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  server_error: 500,
  internal_error: 500,
  InternalServerError: 500,
  api_error: 500,
  not_supported_error: 501,
  NotImplementedError: 501,
  unavailable_error: 503,
  overloaded_error: 529,
}));

/** The status an error without an HTTP status (a stream error event) stands for. */
export function statusForEnvelope(envelope: ErrorEnvelope): number {
  if (envelope.code !== undefined && envelope.code >= 400) return envelope.code;
  const byType = envelope.type === undefined ? undefined : STATUS_BY_TYPE.get(envelope.type);
  return byType ?? 500;
}
