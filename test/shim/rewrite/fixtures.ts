/**
 * Loads the captured fixtures in `test/fixtures/` (provenance in its README)
 * for the shim's pure-function tests.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fixturePath } from '../../sim/fixtures-dir.js';

export { fixturePath };

export type JsonObject = Record<string, unknown>;

export interface BlockView extends JsonObject {
  type?: unknown;
  text?: unknown;
}
export interface MessageView extends JsonObject {
  role: string;
  content: unknown;
}
export interface BodyView extends JsonObject {
  messages: MessageView[];
  system: BlockView[];
}

/** Typed read-only view of a request body for assertions. */
export function view(body: unknown): BodyView {
  return body as BodyView; // tests only read through it; a body of another shape fails the expectations
}

/** Content as blocks: string content as one text block, as local backends render it. */
export function blocksOf(content: unknown): BlockView[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content as BlockView[]) : []; // elements are read, never trusted to have fields
}

export interface CapturedRequest {
  readonly file: string;
  readonly url: string;
  readonly body: JsonObject;
}

/** Every req-NNN.json of a captured Claude Code session, in order. */
export function capturedSession(name: string): CapturedRequest[] {
  const dir = fixturePath('claude-code', name);
  return readdirSync(dir)
    .filter((f) => /^req-\d+\.json$/.test(f))
    .sort()
    .map((file) => {
      // The capture format is ours (method, url, headers, body); a reason to trust the shape.
      const record = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { url: string; body: JsonObject };
      return { file, url: record.url, body: record.body };
    });
}

/** A fresh copy of one captured request body (tests may not share mutable fixtures). */
export function capturedBody(session: string, file: string): JsonObject {
  const found = capturedSession(session).find((r) => r.file === file);
  if (found === undefined) throw new Error(`no ${file} in ${session}`);
  return found.body;
}

export interface CapturedResponse {
  readonly status: number;
  readonly body: string;
}

/**
 * A llama-server `.http` capture. Two layouts exist: the August build puts the
 * body first and `HTTP 400` on the last line; b9553 puts `HTTP/1.1 400 Bad
 * Request` on the first line and the body after it.
 */
export function llamaHttp(name: string): CapturedResponse {
  const text = readFileSync(fixturePath('llama-server', name), 'utf8');
  const head = /^HTTP\/1\.[01] (\d{3})[^\n]*\n/.exec(text);
  if (head?.[1] !== undefined) return { status: Number(head[1]), body: text.slice(head[0].length) };
  const tail = /\n?HTTP (\d{3})\s*$/.exec(text);
  if (tail?.[1] !== undefined) return { status: Number(tail[1]), body: text.slice(0, tail.index) };
  throw new Error(`${name}: no HTTP status line`);
}

/** A captured SSE stream, as bytes. */
export function llamaStream(name: string): Buffer {
  return readFileSync(fixturePath('llama-server', name));
}
