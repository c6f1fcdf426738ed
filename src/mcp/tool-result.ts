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
import { pathError } from '../path-errors.js';
import { LIST_JOBS_HINT } from './guidance.js';
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

/** `text` cut to `max` characters, saying how big it was: an argument pasted whole must not come back whole. */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${Buffer.byteLength(text, 'utf8')} bytes in all)`;
}

const MESSAGE_MAX = 4000;
const DETAIL_MAX = 1000;

/** Every string in a detail value shortened; errors often quote what the caller sent. */
function shortenDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return shorten(value, DETAIL_MAX);
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => shortenDeep(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shortenDeep(v, depth + 1)]));
}

export function errorResult(thrown: unknown): CallToolResult {
  const err = isLocalAgentsError(thrown) ? thrown : (pathError(thrown) ?? thrown);
  const full: ToolErrorMeta = isLocalAgentsError(err)
    ? { ...err.details, code: err.code, message: err.message, hint: err.hint ?? (err.code === 'unknown_job' ? LIST_JOBS_HINT : undefined) }
    : { code: 'internal', message: errorMessage(err) };
  const meta = { ...(shortenDeep(full) as ToolErrorMeta), message: shorten(full.message, MESSAGE_MAX) };
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
