/**
 * llama.cpp error bodies, byte-for-byte as the real server writes them (key
 * order included: route errors are {code,message,type}, HTTP-layer errors are
 * {message,type,code}).
 */
import type { LlamaBuild } from './types.js';

export interface ErrorReply {
  readonly status: number;
  readonly body: unknown;
}

const TYPE_STATUS: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  server_error: 500,
  not_supported_error: 501,
  unavailable_error: 503,
  exceed_context_size_error: 400,
};

/** `format_error_response()` as used by route handlers. */
export function llamaError(message: string, type: string): ErrorReply {
  const code = TYPE_STATUS[type] ?? 500;
  return { status: code, body: { error: { code, message, type } } };
}

export function contextExceeded(nPrompt: number, nCtx: number): ErrorReply {
  return {
    status: 400,
    body: {
      error: {
        code: 400,
        message: `request (${nPrompt} tokens) exceeds the available context size (${nCtx} tokens), try increasing it`,
        type: 'exceed_context_size_error',
        n_prompt_tokens: nPrompt,
        n_ctx: nCtx,
      },
    },
  };
}

export const LOADING: ErrorReply = {
  status: 503,
  body: { error: { message: 'Loading model', type: 'unavailable_error', code: 503 } },
};

export const INVALID_API_KEY: ErrorReply = {
  status: 401,
  body: { error: { message: 'Invalid API Key', type: 'authentication_error', code: 401 } },
};

export const NOT_FOUND: ErrorReply = {
  status: 404,
  body: { error: { message: 'File Not Found', type: 'not_found_error', code: 404 } },
};

export function endpointDisabled(name: 'metrics' | 'slots'): ErrorReply {
  return llamaError(`This server does not support ${name} endpoint. Start it with \`--${name}\``, 'not_supported_error');
}

/** Template rejection: 500 with the raw Jinja text (Aug 2026 build) or 400 via the autoparser wrapper (b9553). */
export function templateError(jinjaMessage: string, build: LlamaBuild): ErrorReply {
  if (build === 'b9553') {
    return llamaError(
      `Unable to generate parser for this template. Automatic parser generation failed: ${jinjaMessage}`,
      'invalid_request_error',
    );
  }
  return llamaError(jinjaMessage, 'server_error');
}
