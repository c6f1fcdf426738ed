/**
 * Prompt rendering and token arithmetic shared by both flavours: a lenient
 * ChatML rendering of OpenAI-style messages (used when the real template is
 * not requested), the ~4 chars/token estimate, and longest-common-prefix.
 */
import { isRecord, records, str } from './json.js';

export interface OaiToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

export interface OaiMessage {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_calls?: readonly OaiToolCall[];
  readonly reasoning_content?: string;
  readonly tool_call_id?: string;
}

export interface OaiTool {
  readonly type: 'function';
  readonly function: { readonly name: string; readonly description: string; readonly parameters: unknown };
}

export const CHARS_PER_TOKEN = 4;

export function tokenCount(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Longest common prefix of two strings, in chars. */
export function lcpChars(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Cached tokens for a prompt that shares `lcp` chars with what is in the KV cache. */
export function cachedTokensFor(lcp: number, promptTokens: number): number {
  // The server always re-evaluates at least the last prompt token.
  return Math.max(0, Math.min(Math.floor(lcp / CHARS_PER_TOKEN), promptTokens - 1));
}

/** Content as llama.cpp hands it to a template without typed-content support: text parts joined by "\n". */
export function flattenContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const part of records(content)) {
    if (part['type'] === 'text') parts.push(str(part['text']) ?? '');
    else if (part['type'] === 'image_url') parts.push('<|vision_start|><|image_pad|><|vision_end|>');
  }
  return parts.join('\n');
}

function renderToolCalls(calls: readonly OaiToolCall[] | undefined): string {
  if (calls === undefined) return '';
  return calls
    .map((c) => `<tool_call>\n${JSON.stringify({ name: c.function.name, arguments: c.function.arguments })}\n</tool_call>`)
    .join('\n');
}

/**
 * A ChatML rendering that never rejects anything (system messages anywhere are
 * rendered in place). Stable: appending messages only appends text.
 */
export function renderLenient(messages: readonly OaiMessage[], tools: readonly OaiTool[] | undefined): string {
  let out = '';
  let start = 0;
  const first = messages[0];
  const sys = first?.role === 'system' ? flattenContent(first.content) : undefined;
  if (sys !== undefined) start = 1;
  if (tools !== undefined && tools.length > 0) {
    out += `<|im_start|>system\n# Tools\n\n<tools>\n${tools.map((t) => JSON.stringify(t)).join('\n')}\n</tools>`;
    out += sys !== undefined && sys !== '' ? `\n\n${sys}<|im_end|>\n` : '<|im_end|>\n';
  } else if (sys !== undefined) {
    out += `<|im_start|>system\n${sys}<|im_end|>\n`;
  }
  for (const m of messages.slice(start)) {
    const text = flattenContent(m.content);
    if (m.role === 'tool') {
      out += `<|im_start|>user\n<tool_response>\n${text}\n</tool_response><|im_end|>\n`;
      continue;
    }
    const think = m.reasoning_content !== undefined && m.reasoning_content !== '' ? `<think>\n${m.reasoning_content}\n</think>\n\n` : '';
    const calls = renderToolCalls(m.tool_calls);
    out += `<|im_start|>${m.role}\n${think}${text}${calls === '' ? '' : `\n\n${calls}`}<|im_end|>\n`;
  }
  return `${out}<|im_start|>assistant\n<think>\n`;
}

/** Tool-call arguments as objects, the form the Qwen template iterates over. */
export function parseArguments(args: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(args);
    return isRecord(v) ? v : {};
  } catch {
    return {};
  }
}
