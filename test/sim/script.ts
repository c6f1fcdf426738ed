/**
 * Scripted model behaviour: which Turn answers a request (list index = number
 * of assistant messages, compaction requests always get a summary), and how a
 * Turn becomes token-sized output chunks under max_tokens and stop sequences.
 */
import { contentText, isRecord, num, records, str, type JsonRecord } from './json.js';
import { CHARS_PER_TOKEN } from './prompt-text.js';
import type { ParsedRequest, Script, ScriptContext, ScriptToolUse, Turn } from './types.js';

export const COMPACTION_MARKER = 'CRITICAL: Respond with TEXT ONLY';

export const COMPACTION_SUMMARY =
  '<analysis>\nThe user asked for work in the repository; the assistant used tools and reported back.\n</analysis>\n\n' +
  '<summary>\n1. Primary Request and Intent: simulated summary of the conversation so far.\n' +
  '2. Current Work: the last tool call finished.\n3. Next Step: continue with the original request.\n</summary>';

export function parseRequest(body: JsonRecord, headers: Readonly<Record<string, string>>): ParsedRequest {
  const messages = records(body['messages']);
  const lastUser = [...messages].reverse().find((m) => m['role'] === 'user');
  const lastUserText = lastUser === undefined ? '' : contentText(lastUser['content']);
  return {
    body,
    model: str(body['model']) ?? '',
    stream: body['stream'] === true,
    maxTokens: num(body['max_tokens']),
    messages,
    assistantTurns: messages.filter((m) => m['role'] === 'assistant').length,
    lastUserText,
    isCompaction: lastUserText.includes(COMPACTION_MARKER),
    headers,
  };
}

export async function resolveTurn(script: Script, req: ParsedRequest, ctx: ScriptContext): Promise<Turn> {
  if (req.isCompaction) return { text: COMPACTION_SUMMARY };
  if (typeof script === 'function') return script(req, ctx);
  return script[req.assistantTurns] ?? { text: 'done' };
}

export interface PlannedTool {
  readonly name: string;
  readonly input: Record<string, unknown>;
  /** Argument JSON split into token-sized pieces. */
  readonly argChunks: readonly string[];
}

export interface PlannedOutput {
  readonly thinking: readonly string[];
  readonly text: readonly string[];
  readonly tools: readonly PlannedTool[];
  readonly stopReason: 'end_turn' | 'tool_use' | 'max_tokens';
  /** The stop sequence that ended generation (llama.cpp reports it; vLLM does not). */
  readonly stopSequence: string | null;
  readonly outputTokens: number;
}

/** Splits text into ~1-token pieces without breaking surrogate pairs. */
export function tokenChunks(text: string): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += CHARS_PER_TOKEN) out.push(chars.slice(i, i + CHARS_PER_TOKEN).join(''));
  return out;
}

function isToolArray(t: ScriptToolUse | readonly ScriptToolUse[]): t is readonly ScriptToolUse[] {
  return Array.isArray(t);
}

function toolList(t: Turn['toolUse']): readonly ScriptToolUse[] {
  if (t === undefined) return [];
  return isToolArray(t) ? t : [t];
}

export interface PlanLimits {
  /** Tokens the model may still generate (max_tokens, and for llama.cpp the room left in n_ctx). */
  readonly budget: number;
  readonly stop: readonly string[];
  /** chat_template_kwargs.enable_thinking === false removes the thinking block. */
  readonly thinking: boolean;
}

export function planOutput(turn: Turn, limits: PlanLimits): PlannedOutput {
  let text = turn.text ?? '';
  let stopSequence: string | null = null;
  let cutByStop = false;
  for (const s of limits.stop) {
    const at = s === '' ? -1 : text.indexOf(s);
    if (at >= 0 && (stopSequence === null || at < text.indexOf(stopSequence))) {
      stopSequence = s;
      cutByStop = true;
    }
  }
  if (stopSequence !== null) text = text.slice(0, text.indexOf(stopSequence));
  let budget = Math.max(0, limits.budget);
  let truncated = false;
  const take = (chunks: string[]): string[] => {
    if (chunks.length > budget) truncated = true;
    const kept = chunks.slice(0, budget);
    budget -= kept.length;
    return kept;
  };
  const thinking = limits.thinking ? take(tokenChunks(turn.thinking ?? '')) : [];
  const textChunks = take(tokenChunks(text));
  const tools: PlannedTool[] = [];
  if (!cutByStop) {
    for (const t of toolList(turn.toolUse)) {
      const argChunks = tokenChunks(JSON.stringify(t.input));
      if (truncated || argChunks.length > budget) {
        truncated = true;
        break;
      }
      budget -= argChunks.length;
      tools.push({ name: t.name, input: t.input, argChunks });
    }
  }
  const outputTokens = thinking.length + textChunks.length + tools.reduce((n, t) => n + t.argChunks.length, 0);
  const stopReason = truncated ? 'max_tokens' : tools.length > 0 ? 'tool_use' : 'end_turn';
  return { thinking, text: textChunks, tools, stopReason, stopSequence: truncated ? null : stopSequence, outputTokens };
}

/** chat_template_kwargs.enable_thinking, defaulting to on as both servers do for Qwen. */
export function thinkingEnabled(kwargs: unknown): boolean {
  return !(isRecord(kwargs) && kwargs['enable_thinking'] === false);
}
