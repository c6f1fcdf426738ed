/**
 * Splits a user message that holds tool results and other content (text, a folded system message, Claude Code's
 * compaction instruction) into two user messages: the tool results, then the rest. Owns only `messages`.
 *
 * Why: llama.cpp's Anthropic converter turns such a message into the user's text FIRST and the tool messages after
 * it, so the template sees assistant(tool calls) → user → tool. Templates that check the conversation's order refuse
 * that: Mistral's ("conversation roles must alternate user/assistant…"), Apertus ("Tool message outside of
 * assistant"); measured on the llama.cpp source's templates by test/real/templates.real.test.ts. Two consecutive user
 * messages mean the same to the Messages API, and each message splits the same way on every turn, so the prompt
 * prefix stays stable.
 */
import { isRecord, type JsonRecord } from './json-shape.js';

export interface ToolResultsFirstResult {
  /** The input object itself when nothing was split. */
  readonly body: unknown;
  readonly changed: boolean;
  /** User messages split in two. */
  readonly split: number;
}

const isToolResult = (block: unknown): boolean => isRecord(block) && block.type === 'tool_result';

export function toolResultsFirst(body: unknown): ToolResultsFirstResult {
  if (!isRecord(body) || !Array.isArray(body.messages)) return { body, changed: false, split: 0 };
  let split = 0;
  const messages: unknown[] = [];
  for (const message of body.messages as unknown[]) {
    const content = isRecord(message) && message.role === 'user' ? message.content : undefined;
    if (!Array.isArray(content) || !content.some(isToolResult) || content.every(isToolResult)) {
      messages.push(message);
      continue;
    }
    const m = message as JsonRecord;
    messages.push({ ...m, content: content.filter(isToolResult) }, { ...m, content: content.filter((b) => !isToolResult(b)) });
    split++;
  }
  return split === 0 ? { body, changed: false, split } : { body: { ...body, messages }, changed: true, split };
}
