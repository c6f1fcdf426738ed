/**
 * Folds mid-conversation `role:"system"` messages into the user turn they
 * belong to, in place. Owns only the `messages` (and, as a last resort, the
 * top-level `system`) of an Anthropic Messages body; knows no backend names.
 *
 * Why in place: Claude Code sends a `role:"system"` message at `messages[1]` on
 * every request and more after budget/plan-mode/model-switch attachments.
 * Strict chat templates (Qwen3.5+) reject them ("System message must be at the
 * beginning."), and hoisting them into the top-level system rewrites the start
 * of the prompt every time one appears: 23–31% KV-cache prefix reuse measured on
 * a session with mid-conversation system messages, against 100% when folded
 * into the preceding user message (docs/claude-code-wire.md §2).
 *
 * The session's environment block is the exception: Claude Code sends it at
 * `messages[1]`, right after the first user message (git status, attribution,
 * the task). It goes to the START of that message, so a job's first request
 * reads system prompt, tools, environment, git status and only then the task:
 * what jobs in one repository share comes first and the per-job task last, and
 * the next job's first request reuses everything up to its task from the
 * server's cache (83% reused with it appended, after the task). Every request of
 * a session carries the same messages[0..1], so it folds the same way every time.
 *
 * Byte stability: Claude Code sends the same system message as a one-block
 * array with `cache_control` while it is the last message and as a plain string
 * afterwards. The folded block is built from the text alone, so both forms fold
 * to the same bytes. The `cache_control` of a folded system block is dropped on
 * purpose: llama.cpp and vLLM ignore it, and keeping it would make the folded
 * block differ between consecutive requests.
 */
import { isRecord, isTextBlock, withKey, type JsonRecord } from '../json/json-shape.js';

export interface FoldSystemMessagesResult {
  /** The input object itself when nothing was folded. */
  readonly body: unknown;
  readonly changed: boolean;
  /** System messages removed from `messages` (folded into a user turn or the top-level system). */
  readonly folded: number;
  /** System messages left in place because their content was not text (unknown block types). */
  readonly unfoldable: number;
}

/** The text block a system message becomes inside a user turn. */
export function foldedSystemBlock(text: string): { type: 'text'; text: string } {
  return { type: 'text', text: `<system>${text}</system>` };
}

/**
 * The text of a system message, or undefined when its content is something we
 * cannot fold without losing it. Multiple text blocks are joined with no
 * separator, which is what both llama.cpp and vLLM render for text blocks.
 */
export function systemMessageText(message: JsonRecord): string | undefined {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  let text = '';
  for (const block of content) {
    if (!isTextBlock(block)) return undefined;
    text += block.text;
  }
  return text;
}

function isSystemMessage(value: unknown): value is JsonRecord {
  return isRecord(value) && value.role === 'system';
}

/** A user message whose content we know how to extend. */
function isFoldTarget(value: unknown): value is JsonRecord {
  return isRecord(value) && value.role === 'user' && (typeof value.content === 'string' || Array.isArray(value.content));
}

/** Content as a block array: string content becomes one text block (its bytes otherwise unchanged). */
function contentBlocks(message: JsonRecord): unknown[] {
  const content = message.content;
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content : [];
}

function appendBlocks(message: JsonRecord, blocks: readonly unknown[]): JsonRecord {
  return withKey(message, 'content', [...contentBlocks(message), ...blocks]);
}

function prependBlocks(message: JsonRecord, blocks: readonly unknown[]): JsonRecord {
  return withKey(message, 'content', [...blocks, ...contentBlocks(message)]);
}

/**
 * Appends system texts to the top-level `system`, used only when the
 * conversation has no user message at all. Returns undefined when `system` has
 * a shape we cannot extend.
 */
function appendToTopLevelSystem(system: unknown, texts: readonly string[]): unknown {
  if (system === undefined || system === null) return texts.join('\n\n');
  if (typeof system === 'string') return [system, ...texts].filter((t) => t !== '').join('\n\n');
  if (Array.isArray(system)) {
    const blocks: readonly unknown[] = system;
    return [...blocks, ...texts.map((text) => ({ type: 'text', text }))];
  }
  return undefined;
}

/**
 * Folds every text-only `role:"system"` message into the nearest preceding
 * user message, appended as `<system>…</system>` at the end of its content;
 * the one at `messages[1]` right after a first user message at `messages[0]`
 * (the environment block) is put at the start of that message instead.
 * With no user message before it, it is prepended to the next user message;
 * with no user message at all, it is appended to the top-level `system`.
 * Never mutates its input; returns the input object when there is nothing to do.
 */
export function foldSystemMessages(body: unknown): FoldSystemMessagesResult {
  const unchanged = (unfoldable: number): FoldSystemMessagesResult => ({ body, changed: false, folded: 0, unfoldable });
  if (!isRecord(body) || !Array.isArray(body.messages)) return unchanged(0);
  const messages: readonly unknown[] = body.messages;
  if (!messages.some(isSystemMessage)) return unchanged(0);

  const out: unknown[] = [];
  let lastUser = -1;
  let lastUserMessage: JsonRecord | undefined;
  let folded = 0;
  let unfoldable = 0;
  // System messages seen before any user message: texts plus their index in `out`
  // (kept as a placeholder until we know where they go).
  const leading: { text: string; slot: number }[] = [];

  for (const [index, message] of messages.entries()) {
    if (isSystemMessage(message)) {
      const text = systemMessageText(message);
      if (text === undefined) {
        unfoldable += 1;
        out.push(message);
        continue;
      }
      if (index === 1 && lastUserMessage !== undefined && lastUser === 0) {
        lastUserMessage = prependBlocks(lastUserMessage, [foldedSystemBlock(text)]);
        out[lastUser] = lastUserMessage;
        folded += 1;
      } else if (lastUserMessage !== undefined) {
        lastUserMessage = appendBlocks(lastUserMessage, [foldedSystemBlock(text)]);
        out[lastUser] = lastUserMessage;
        folded += 1;
      } else {
        leading.push({ text, slot: out.length });
        out.push(message);
      }
      continue;
    }
    if (isFoldTarget(message)) {
      let target: JsonRecord = message;
      if (leading.length > 0 && lastUser < 0) {
        target = prependBlocks(message, leading.map((l) => foldedSystemBlock(l.text)));
      }
      out.push(target);
      lastUser = out.length - 1;
      lastUserMessage = target;
      continue;
    }
    out.push(message);
  }

  let nextBody: JsonRecord = body;
  if (leading.length > 0) {
    if (lastUser >= 0) {
      folded += leading.length;
    } else {
      const system = appendToTopLevelSystem(body.system, leading.map((l) => l.text));
      if (system === undefined) {
        unfoldable += leading.length;
        leading.length = 0;
      } else {
        nextBody = withKey(nextBody, 'system', system);
        folded += leading.length;
      }
    }
  }
  if (folded === 0) return unchanged(unfoldable);

  const slots = new Set(leading.map((l) => l.slot));
  const finalMessages = slots.size === 0 ? out : out.filter((_, i) => !slots.has(i));
  return { body: withKey(nextBody, 'messages', finalMessages), changed: true, folded, unfoldable };
}
