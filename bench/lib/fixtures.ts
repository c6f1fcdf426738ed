/**
 * Request bodies for the benchmarks: every captured Claude Code request in
 * test/fixtures/claude-code, its headers as Claude Code sent them, and
 * bodies of a chosen size synthesised from one capture (tool turns repeated
 * to grow it; tools and turns dropped to shrink it).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturePath } from '../../test/sim/index.js';

export type JsonObject = Record<string, unknown>;

export interface CapturedRequest {
  readonly session: string;
  readonly file: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: JsonObject;
}

/** Connection-level headers the HTTP client sets itself. */
const CONNECTION_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding']);

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function capturedSessions(): string[] {
  return readdirSync(fixturePath('claude-code')).sort();
}

export function capturedSession(session: string): CapturedRequest[] {
  const dir = fixturePath('claude-code', session);
  return readdirSync(dir)
    .filter((f) => /^req-\d+\.json$/.test(f))
    .sort()
    .map((file) => {
      const record: unknown = JSON.parse(readFileSync(join(dir, file), 'utf8'));
      if (!isObject(record) || !isObject(record.body) || !isObject(record.headers)) throw new Error(`${session}/${file}: not a captured request`);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(record.headers)) if (typeof v === 'string' && !CONNECTION_HEADERS.has(k)) headers[k] = v;
      return { session, file, headers, body: record.body };
    });
}

/** Every main-loop request of every session (30–60 kB each). */
export function allCapturedRequests(): CapturedRequest[] {
  return capturedSessions().flatMap(capturedSession).filter((r) => JSON.stringify(r.body).length > 20_000);
}

function size(body: JsonObject): number {
  return Buffer.byteLength(JSON.stringify(body));
}

function messagesOf(body: JsonObject): unknown[] {
  return Array.isArray(body.messages) ? [...(body.messages as unknown[])] : []; // elements are copied, never inspected
}

/**
 * A body of about `bytes` bytes built from `base`: to grow, copies of its
 * first assistant/user tool turn (messages 2 and 3) are inserted after it, so
 * roles still alternate and the request ends with the same user message; to
 * shrink, tool definitions go first, then turns from the end, then the longest
 * text is cut. Content is never parsed by the stub, so repeated tool ids do no harm.
 */
export function sizedBody(base: JsonObject, bytes: number): JsonObject {
  const body: JsonObject = structuredClone(base);
  const messages = messagesOf(body);
  const pair = messages.slice(2, 4);
  if (size(body) < bytes && pair.length === 2) {
    const pairBytes = Buffer.byteLength(JSON.stringify(pair));
    const copies = Math.max(0, Math.round((bytes - size(body)) / (pairBytes + 1)));
    const extra = Array.from({ length: copies }, () => structuredClone(pair)).flat();
    body.messages = [...messages.slice(0, 4), ...extra, ...messages.slice(4)];
    return body;
  }
  const tools = Array.isArray(body.tools) ? [...(body.tools as unknown[])] : [];
  while (size(body) > bytes && tools.length > 0) {
    tools.pop();
    body.tools = [...tools];
  }
  while (size(body) > bytes && messages.length > 4) {
    messages.splice(messages.length - 3, 2); // an assistant/user pair before the last user message
    body.messages = [...messages];
  }
  if (size(body) > bytes) cutLongestText(body, size(body) - bytes);
  return body;
}

function cutLongestText(body: JsonObject, excess: number): void {
  let best: { holder: JsonObject; key: string; length: number } | undefined;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (isObject(value)) {
      for (const [k, v] of Object.entries(value)) {
        if (typeof v === 'string' && (best === undefined || v.length > best.length)) best = { holder: value, key: k, length: v.length };
        else visit(v);
      }
    }
  };
  visit(body);
  if (best !== undefined) {
    const text = best.holder[best.key];
    if (typeof text === 'string') best.holder[best.key] = text.slice(0, Math.max(0, text.length - excess));
  }
}

/** The capture the size ladder grows from: 8 tool turns, one system message to fold, 52 kB. */
export function ladderBase(): CapturedRequest {
  const found = capturedSession('session-8-tool-turns').find((r) => r.file === 'req-009.json');
  if (found === undefined) throw new Error('fixture session-8-tool-turns/req-009.json is missing');
  return found;
}
