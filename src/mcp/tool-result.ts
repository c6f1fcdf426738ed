/**
 * The two shapes every tool answers with: a result (text for the reader of the
 * log, structuredContent for the calling Claude) or an error that keeps its
 * code, hint and details instead of the SDK's message-only catch-all.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage, isLocalAgentsError } from '../errors.js';

export function okResult(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

export function errorResult(err: unknown): CallToolResult {
  if (isLocalAgentsError(err)) {
    const text = err.hint ? `${err.message}\n${err.hint}` : err.message;
    return {
      isError: true,
      content: [{ type: 'text', text: `${err.code}: ${text}` }],
      structuredContent: { error: err.code, message: err.message, hint: err.hint, ...err.details },
    };
  }
  return {
    isError: true,
    content: [{ type: 'text', text: `internal: ${errorMessage(err)}` }],
    structuredContent: { error: 'internal', message: errorMessage(err) },
  };
}

/** Runs a handler and turns anything it throws into an error result. */
export async function guarded(handler: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await handler();
  } catch (err) {
    return errorResult(err);
  }
}
