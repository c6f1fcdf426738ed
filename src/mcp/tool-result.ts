/**
 * The two shapes every tool answers with: a result (text for the reader of the
 * log, structuredContent for the calling Claude) or an error that keeps its
 * code, hint and details instead of the SDK's message-only catch-all.
 *
 * Errors carry no structuredContent: MCP clients check structuredContent
 * against the tool's (success) output schema even when isError is set, and a
 * mismatch would replace our message with a schema error. The details go in
 * the text (the calling Claude reads it) and in `_meta.error` for programs.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage, isLocalAgentsError, type ErrorCode } from '../errors.js';
import { redactDeep, redactSecrets } from '../secrets/redact.js';

export const ERROR_META_KEY = 'localagents/error';

export interface ToolErrorMeta {
  readonly code: ErrorCode;
  readonly message: string;
  readonly hint?: string | undefined;
  readonly [detail: string]: unknown;
}

export function okResult(text: string, structured: Record<string, unknown>): CallToolResult {
  // What a tool answers goes into the calling model's context: no key may ride along.
  return { content: [{ type: 'text', text: redactSecrets(text) }], structuredContent: redactDeep(structured) };
}

export function errorResult(err: unknown): CallToolResult {
  const meta: ToolErrorMeta = isLocalAgentsError(err)
    ? { ...err.details, code: err.code, message: err.message, hint: err.hint }
    : { code: 'internal', message: errorMessage(err) };
  const lines = [`${meta.code}: ${meta.message}`];
  if (meta.hint) lines.push(`hint: ${meta.hint}`);
  const details = Object.fromEntries(Object.entries(meta).filter(([k, v]) => !['code', 'message', 'hint'].includes(k) && v !== undefined));
  if (Object.keys(details).length > 0) lines.push(`details: ${JSON.stringify(details)}`);
  return { isError: true, content: [{ type: 'text', text: redactSecrets(lines.join('\n')) }], _meta: { [ERROR_META_KEY]: redactDeep(meta) } };
}

/** Runs a handler and turns anything it throws into an error result. */
export async function guarded(handler: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await handler();
  } catch (err) {
    return errorResult(err);
  }
}
