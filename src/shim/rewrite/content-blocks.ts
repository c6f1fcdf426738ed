/**
 * Visits every content block of a request's messages, also the blocks inside a
 * `tool_result`, and rebuilds only what a visitor replaced. Shared by the rules
 * that turn media into text; knows no block type itself.
 */
import { isRecord, withKey, type JsonRecord } from '../json/json-shape.js';

/** Where a block sits: the file a Read tool call named, when the block is (inside) that call's result. */
export interface BlockPlace {
  /** `input.file_path` of the tool_use this block's tool_result answers. */
  readonly filePath: string | undefined;
}

/** Returns the block to put in its place, or the block itself to keep it. */
export type BlockVisitor = (block: JsonRecord, place: BlockPlace) => unknown;

const NOWHERE: BlockPlace = { filePath: undefined };

/** tool_use id → its `input.file_path`, over the whole conversation (a result always follows its call). */
function filePathsByToolUse(messages: readonly unknown[]): Map<string, string> {
  const paths = new Map<string, string>();
  for (const message of messages) {
    if (!isRecord(message) || !Array.isArray(message.content)) continue;
    for (const block of message.content as readonly unknown[]) {
      if (!isRecord(block) || block.type !== 'tool_use' || typeof block.id !== 'string' || !isRecord(block.input)) continue;
      const path = block.input.file_path;
      if (typeof path === 'string') paths.set(block.id, path);
    }
  }
  return paths;
}

/** The list with each block visited; the same array when no visitor replaced anything. */
function visitList(blocks: readonly unknown[], place: BlockPlace, visit: BlockVisitor, paths: Map<string, string>): readonly unknown[] {
  let out: unknown[] | undefined;
  blocks.forEach((block, i) => {
    let next: unknown = block;
    if (isRecord(block) && block.type === 'tool_result' && Array.isArray(block.content)) {
      const inner = visitList(block.content as readonly unknown[], { filePath: typeof block.tool_use_id === 'string' ? paths.get(block.tool_use_id) : undefined }, visit, paths);
      if (inner !== block.content) next = withKey(block, 'content', inner);
    } else if (isRecord(block)) next = visit(block, place);
    if (next !== block) (out ??= [...blocks])[i] = next;
  });
  return out ?? blocks;
}

/**
 * `messages` with every block visited, or the same array when nothing was
 * replaced (so the caller can forward the original bytes). Never mutates.
 */
export function visitMessageBlocks(messages: readonly unknown[], visit: BlockVisitor): readonly unknown[] {
  const paths = filePathsByToolUse(messages);
  let out: unknown[] | undefined;
  messages.forEach((message, i) => {
    if (!isRecord(message) || !Array.isArray(message.content)) return;
    const content = visitList(message.content as readonly unknown[], NOWHERE, visit, paths);
    if (content !== message.content) (out ??= [...messages])[i] = withKey(message, 'content', content);
  });
  return out ?? messages;
}
