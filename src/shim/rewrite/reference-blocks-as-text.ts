/**
 * `tool_reference` and `search_result` blocks become text blocks saying the
 * same thing. Owns only those two block types.
 *
 * Why: both are text in substance, and no local backend keeps them as sent.
 * llama-server keeps only text and image parts of a tool_result and drops any
 * other block without a word (server-chat.cpp, de3ff815): a ToolSearch result
 * made only of `tool_reference` blocks reaches the model as an empty tool
 * result. Ollama's converter drops them too (anthropic.go); vLLM rejects a
 * `search_result` with a 400 validation error (protocol.py). The text depends
 * only on the block, so every turn carries the same bytes.
 */
import { visitMessageBlocks } from './content-blocks.js';
import { isRecord, isTextBlock, withKey, type JsonRecord } from '../json/json-shape.js';

export interface ReferenceBlocksResult {
  /** The input object itself when nothing was replaced. */
  readonly body: unknown;
  readonly replaced: number;
}

function searchResultText(block: JsonRecord): string {
  const title = typeof block.title === 'string' ? block.title : 'untitled';
  const source = typeof block.source === 'string' ? ` (${block.source})` : '';
  const content = Array.isArray(block.content) ? (block.content as readonly unknown[]).filter(isTextBlock).map((b) => b.text) : [];
  return [`[search result: ${title}${source}]`, ...content].join('\n');
}

function asText(block: JsonRecord): string | undefined {
  if (block.type === 'tool_reference') return `[tool ${typeof block.tool_name === 'string' ? block.tool_name : '(unnamed)'} is loaded: its definition is in the tool list]`;
  if (block.type === 'search_result') return searchResultText(block);
  return undefined;
}

export function referenceBlocksAsText(body: unknown): ReferenceBlocksResult {
  if (!isRecord(body) || !Array.isArray(body.messages)) return { body, replaced: 0 };
  let replaced = 0;
  const messages = visitMessageBlocks(body.messages as readonly unknown[], (block) => {
    const text = asText(block);
    if (text === undefined) return block;
    replaced += 1;
    return { type: 'text', text };
  });
  return replaced === 0 ? { body, replaced } : { body: withKey(body, 'messages', messages), replaced };
}
