/**
 * MCP 2026-07-28 on the wire, as far as localagents speaks it beside the v1 SDK's 2025-11-25: every request
 * carries its protocol version and capabilities in `_meta` (no initialize), `server/discover` says what the
 * server speaks, every result carries `resultType`. Facts: docs/claude-code-wire.md §7.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export const MODERN_VERSION = '2026-07-28';
export const LEGACY_VERSION = '2025-11-25';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';

/** JSON-RPC error codes of 2026-07-28 (and JSON-RPC's own invalid params, which tasks use for "not found"). */
export const INVALID_PARAMS = -32602;
export const MISSING_CAPABILITY = -32021;
export const UNSUPPORTED_VERSION = -32022;

export type Id = string | number;
export interface Request {
  readonly jsonrpc: '2.0';
  readonly id: Id;
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function isRequest(message: JSONRPCMessage): message is JSONRPCMessage & Request {
  return 'method' in message && 'id' in message;
}

function metaOf(message: JSONRPCMessage): Record<string, unknown> | undefined {
  if (!('method' in message)) return undefined;
  const params = (message as { params?: unknown }).params;
  const meta = isObject(params) ? params._meta : undefined;
  return isObject(meta) ? meta : undefined;
}

/** A message of the stateless protocol (it names its version per request), or the discovery probe that starts one. */
export function isModern(message: JSONRPCMessage): boolean {
  if ('method' in message && message.method === 'server/discover') return true;
  return metaOf(message)?.[VERSION_KEY] !== undefined;
}

export function versionOf(message: JSONRPCMessage): unknown {
  return metaOf(message)?.[VERSION_KEY];
}

/** The request itself declares the tasks extension (a declaration on an earlier request does not count). */
export function declaresTasks(message: JSONRPCMessage): boolean {
  const capabilities = metaOf(message)?.[CAPABILITIES_KEY];
  const extensions = isObject(capabilities) ? capabilities.extensions : undefined;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

export function result(id: Id, body: Record<string, unknown>): JSONRPCMessage {
  return { jsonrpc: '2.0', id, result: { resultType: 'complete', ...body } };
}

export function failure(id: Id, code: number, message: string, data?: Record<string, unknown>): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } };
}

export function missingTasks(id: Id): JSONRPCMessage {
  return failure(id, MISSING_CAPABILITY, 'Missing required client capability', { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
}

export function unsupportedVersion(id: Id, asked: unknown): JSONRPCMessage {
  return failure(id, UNSUPPORTED_VERSION, `Unsupported protocol version ${JSON.stringify(asked)}; this server speaks ${MODERN_VERSION} and ${LEGACY_VERSION} (initialize)`, {
    supported: [MODERN_VERSION, LEGACY_VERSION],
    requested: asked,
  });
}

/**
 * A 2025-11-25 result made a 2026-07-28 one: `resultType`, and the caching fields list results must carry
 * (no caching: tools/list can change when the user edits models.yaml).
 */
export function modernResult(method: string, message: JSONRPCMessage): JSONRPCMessage {
  if (!('result' in message) || !isObject(message.result)) return message;
  const cacheable = method.endsWith('/list') || method === 'resources/read';
  return { ...message, result: { resultType: 'complete', ...(cacheable ? { ttlMs: 0, cacheScope: 'private' } : {}), ...message.result } };
}
