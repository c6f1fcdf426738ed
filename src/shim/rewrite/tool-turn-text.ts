/**
 * Moves the text of a user message that carries tool results (a folded system message, a system reminder, Claude
 * Code's compaction instruction) into the last of those results, after its own content. Other blocks (an image)
 * follow as a user message of their own. Owns only `messages`.
 *
 * Why: llama.cpp's Anthropic converter turns such a message into the user's text FIRST and the tool messages after
 * it, so the template sees assistant(tool calls) → user → tool. Templates that check the conversation's order refuse
 * that (Apertus: "Tool message outside of assistant"), and those that demand user/assistant alternation outside tool
 * calls refuse a user message right after tool results at all (Mistral-Nemo, Mistral-Small-3.2, Ministral 3:
 * "conversation roles must alternate…"); measured on the llama.cpp source's templates by
 * test/real/templates.real.test.ts. Inside the tool result every template renders it, in the standard tool loop
 * order; Claude Code itself puts system reminders inside tool results. Each message moves the same way on every turn,
 * so the prompt prefix stays stable.
 */
import { isRecord, isTextBlock, type JsonRecord } from '../json/json-shape.js';

export interface ToolTurnTextResult {
  /** The input object itself when nothing moved. */
  readonly body: unknown;
  readonly changed: boolean;
  /** User messages whose text went into their last tool result. */
  readonly moved: number;
}

/** Between a result's own content and the text after it (llama.cpp joins text parts with nothing). */
const SEPARATOR = '\n\n';

const isToolResult = (block: unknown): block is JsonRecord => isRecord(block) && block.type === 'tool_result';

function withText(result: JsonRecord, texts: readonly string[]): JsonRecord {
  const added = texts.map((text) => ({ type: 'text', text: `${SEPARATOR}${text}` }));
  const content = result.content;
  if (typeof content === 'string') return { ...result, content: [{ type: 'text', text: content }, ...added] };
  if (Array.isArray(content)) return { ...result, content: [...(content as unknown[]), ...added] };
  return { ...result, content: texts.join(SEPARATOR) };
}

function moved(message: JsonRecord, content: readonly unknown[]): JsonRecord[] | undefined {
  const results = content.filter(isToolResult);
  const texts = content.filter(isTextBlock);
  if (results.length === 0 || texts.length === 0) return undefined;
  const last = results[results.length - 1];
  if (last === undefined) return undefined;
  const others = content.filter((b) => !isToolResult(b) && !isTextBlock(b));
  const first: JsonRecord = { ...message, content: [...results.slice(0, -1), withText(last, texts.map((t) => t.text))] };
  return others.length === 0 ? [first] : [first, { ...message, content: others }];
}

export function toolTurnText(body: unknown): ToolTurnTextResult {
  if (!isRecord(body) || !Array.isArray(body.messages)) return { body, changed: false, moved: 0 };
  let count = 0;
  const messages: unknown[] = [];
  for (const message of body.messages as unknown[]) {
    const content = isRecord(message) && message.role === 'user' && Array.isArray(message.content) ? (message.content as unknown[]) : undefined;
    const out = content === undefined ? undefined : moved(message as JsonRecord, content);
    if (out === undefined) messages.push(message);
    else {
      messages.push(...out);
      count++;
    }
  }
  return count === 0 ? { body, changed: false, moved: 0 } : { body: { ...body, messages }, changed: true, moved: count };
}
