/**
 * Gives every tool call id (`tool_use.id` and the `tool_use_id` of its result) the shape the strictest chat templates
 * demand: nine letters and digits. Owns only those two fields of `messages`.
 *
 * Why: Mistral's templates (Mistral-Small-3.2, Mistral-Nemo; llama.cpp and vLLM render them alike) raise
 * "Tool call IDs should be alphanumeric strings with length 9!" for any other id, and Claude Code replays whatever
 * ids it was given (Anthropic's `toolu_…`, vLLM's `chatcmpl-tool-…`). The new id is a hash of the old one, so the
 * same call gets the same id on every turn (the prompt prefix, and the server's cache, stay stable) and a call and its
 * result still match. Ids already of that shape are kept. Claude Code never sees the new ids: the server answers with
 * ids of its own.
 */
import { createHash } from 'node:crypto';
import { isRecord } from '../json/json-shape.js';

export interface ToolCallIdsResult {
  /** The input object itself when no id changed. */
  readonly body: unknown;
  readonly changed: boolean;
  /** Ids rewritten (a call and its result count once each). */
  readonly rewritten: number;
}

const STRICT_ID = /^[A-Za-z0-9]{9}$/;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The nine-character id for `id`: base-62 digits of its SHA-256 (62^9 ≈ 1.3e16, so a session's ids do not collide). */
export function strictToolId(id: string): string {
  if (STRICT_ID.test(id)) return id;
  const digest = createHash('sha256').update(id).digest();
  let out = '';
  for (let i = 0; i < 9; i++) out += ALPHABET[(digest[i] ?? 0) % 62];
  return out;
}

function rewriteBlock(block: unknown, key: 'id' | 'tool_use_id', count: () => void): unknown {
  if (!isRecord(block) || typeof block[key] !== 'string') return block;
  const id = block[key];
  const strict = strictToolId(id);
  if (strict === id) return block;
  count();
  return { ...block, [key]: strict };
}

export function strictToolCallIds(body: unknown): ToolCallIdsResult {
  if (!isRecord(body) || !Array.isArray(body.messages)) return { body, changed: false, rewritten: 0 };
  let rewritten = 0;
  const count = (): void => {
    rewritten++;
  };
  const messages = (body.messages as unknown[]).map((message) => {
    if (!isRecord(message) || !Array.isArray(message.content)) return message;
    const before = rewritten;
    const content = (message.content as unknown[]).map((block) => {
      if (!isRecord(block)) return block;
      if (block.type === 'tool_use') return rewriteBlock(block, 'id', count);
      if (block.type === 'tool_result') return rewriteBlock(block, 'tool_use_id', count);
      return block;
    });
    return rewritten === before ? message : ({ ...message, content });
  });
  return rewritten === 0 ? { body, changed: false, rewritten } : { body: { ...body, messages }, changed: true, rewritten };
}
