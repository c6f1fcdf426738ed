/**
 * Turns a backend's HTTP error response into the Anthropic error Claude Code
 * should see, and builds the errors for a backend that is loading or cannot be
 * reached. Pure: status, headers and body text in, a response description out;
 * never throws, whatever the body.
 */
import type { BackendKind } from '../../config/schema.js';
import { errorResponse, errorStatus, anthropicTypeForStatus, type TranslatedError } from './anthropic-error.js';
import { capitalised, classifyError, serverName } from './classify-error.js';
import { readErrorEnvelope } from './error-envelope.js';

/** Fetch `Headers`, or Node's IncomingHttpHeaders-like record. */
export type HeaderSource = Headers | Readonly<Record<string, string | readonly string[] | number | undefined>>;

export interface BackendErrorInput {
  readonly status: number;
  readonly headers?: HeaderSource | undefined;
  /** The response body as text (may be HTML, empty, or truncated). */
  readonly body: string;
  readonly backend: BackendKind;
  /** Endpoint name from models.yaml, used in messages. */
  readonly endpoint?: string | undefined;
}

const EXCERPT_CHARS = 200;

function header(headers: HeaderSource | undefined, name: string): string | undefined {
  if (headers === undefined) return undefined;
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    if (typeof value === 'string') return value;
    if (typeof value === 'number') return `${value}`;
    if (Array.isArray(value)) return value.find((v): v is string => typeof v === 'string');
  }
  return undefined;
}

/** Visible text of an HTML or plain-text body, shortened for a one-line message. */
function excerpt(body: string): string {
  // Only the head: an error page's message is near the top, and the regexes stay linear-ish.
  const text = body
    .slice(0, 20 * EXCERPT_CHARS)
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    // Not JSON (an HTML error page from a proxy, a text/plain 500): handled as non_json.
    return { ok: false };
  }
}

/**
 * The Anthropic answer for a backend error response. Context overflow and
 * template errors are recognised by type and message whatever the status;
 * everything else keeps its status with the matching Anthropic error type.
 */
export function translateBackendError(input: BackendErrorInput): TranslatedError {
  const status = errorStatus(input.status);
  const original = input.body;
  const retryAfter = header(input.headers, 'retry-after');
  const parsed = parseJson(input.body);
  if (!parsed.ok || parsed.value === null || typeof parsed.value !== 'object') {
    const shown = excerpt(input.body);
    const said = shown === '' ? 'an empty body' : `a non-JSON body: ${shown}`;
    return errorResponse({
      status,
      type: anthropicTypeForStatus(status),
      message: `${capitalised(serverName(input.endpoint))} answered HTTP ${input.status} with ${said}`,
      kind: 'non_json',
      original,
      retryAfter,
    });
  }
  return classifyError({
    status,
    envelope: readErrorEnvelope(parsed.value),
    parsed: parsed.value,
    backend: input.backend,
    endpoint: input.endpoint,
    retryAfter,
    original,
  });
}

export interface UnreachableInput {
  readonly endpoint: string;
  /** Plain-language classification of the connect failure, e.g. "connection refused: the host is up but nothing listens on port 8080". */
  readonly reason: string;
  /** false when retrying cannot help (e.g. a bad address): adds x-should-retry: false. */
  readonly retryable?: boolean;
}

/** For a backend that gave no HTTP answer: 503 api_error naming the endpoint and what is down. */
export function unreachableBackendError(input: UnreachableInput): TranslatedError {
  return errorResponse({
    status: 503,
    type: 'api_error',
    message: `Cannot reach ${serverName(input.endpoint)}: ${input.reason}`,
    kind: 'unreachable',
    original: '',
    noRetry: input.retryable === false,
  });
}

/**
 * For a backend answer the shim refuses to hand on: a 3xx (Claude Code would
 * follow it and send the conversation past the shim) or a body it cannot
 * decode. 502, not retried: the same request gets the same answer.
 */
/**
 * The job waited defaults.outage_wait_s for its endpoint and it did not come back: not retried
 * (x-should-retry: false), so Claude Code ends the session with these words instead of starting
 * another ten retries against a server that is known to be gone.
 */
export function outageDeadlineError(message: string): TranslatedError {
  return errorResponse({ status: 503, type: 'api_error', message, kind: 'unreachable', original: '', noRetry: true });
}

export function refusedAnswerError(message: string): TranslatedError {
  return errorResponse({ status: 502, type: 'api_error', message, kind: 'refused', original: '', noRetry: true });
}

/** Claude Code's own type and status for a request over the size limit; nothing reached the backend. */
export function requestTooLargeError(limitText: string): TranslatedError {
  return errorResponse({
    status: 413,
    type: 'request_too_large',
    message: `Request exceeds the localagents shim's limit of ${limitText} per request; nothing was sent to the model server`,
    kind: 'too_large',
    original: '',
    noRetry: true,
  });
}
