/**
 * Recognises "the prompt does not fit the context window" in any backend's
 * wording and phrases it the way Claude Code acts on. Owns the overflow regexes
 * and the canonical message; detection is by type and text, never by status
 * (vLLM reports overflow on /v1/messages as a 500).
 *
 * Claude Code compacts reactively on exactly `prompt is too long: N tokens > M
 * maximum` (it parses N and M with /prompt is too long[^0-9]*(\d+)\s*tokens?\s*>\s*(\d+)/
 * and uses N − M as the gap to free and M − (N − messages) as the room left
 * after the system prompt and tools). So M here is the largest prompt the
 * backend accepts for this request, and N > M always holds:
 * - llama.cpp rejects n_prompt ≥ n_ctx, so M = n_ctx − 1;
 * - vLLM rejects prompt + max_tokens > max_model_len, so M = max_model_len − max_tokens
 *   (the same gap and room as reporting the total against max_model_len, but N stays the prompt size).
 */
import { errorResponse, type TranslatedError } from './anthropic-error.js';

/** Claude Code's trigger text. */
export function contextOverflowMessage(promptTokens: number, maxPromptTokens: number): string {
  return `prompt is too long: ${promptTokens} tokens > ${maxPromptTokens} maximum`;
}

/**
 * When the backend did not say how large the prompt was: still starts with
 * "prompt is too long" (Claude Code then compacts about a fifth of the
 * conversation), with no digits its N/M parser could misread.
 */
export const CONTEXT_OVERFLOW_WITHOUT_NUMBERS =
  "prompt is too long: the model server's context window was exceeded and it did not say by how many tokens";

export interface OverflowFinding {
  readonly promptTokens: number | undefined;
  readonly maxPromptTokens: number | undefined;
}

export interface ErrorFacts {
  readonly type?: string | undefined;
  readonly message: string;
  /** llama.cpp's extra fields on exceed_context_size_error. */
  readonly nPromptTokens?: unknown;
  readonly nCtx?: unknown;
}

// llama.cpp: "request (24071 tokens) exceeds the available context size (8192 tokens), try increasing it"
const LLAMA_REQUEST = /request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)/;
// llama.cpp, non-splittable tasks: "input (5000 tokens) is larger than the max context size (4096 tokens). skipping"
const LLAMA_INPUT = /input \((\d+) tokens\) is larger than the max context size \((\d+) tokens\)/;
// llama.cpp before b9553 (HTTP 500): "the request exceeds the available context size. try increasing the context size or enable context shift"
const LLAMA_NO_NUMBERS = /exceeds the available context size/;
// vLLM and OpenAI: "This model's maximum context length is 32768 tokens. However, you requested 32000 output tokens
// and your prompt contains at least 769 input tokens, for a total of at least 32769 tokens. …"
const MAX_CONTEXT = /maximum context length is (\d+) tokens/;
const REQUESTED_OUTPUT = /you requested (\d+) output tokens/;
const PROMPT_TOKENS = /your prompt contains (?:at least )?(\d+) input tokens/;
// vLLM character pre-check: "… your prompt contains 200000 characters (more than 131068 characters, which is the
// upper bound for 32767 input tokens). …"
const PROMPT_CHARS = /your prompt contains (\d+) characters \(more than \d+ characters, which is the upper bound for (\d+) input tokens\)/;
// OpenAI legacy: "… you requested 4200 tokens (3200 in the messages, 1000 in the completion)."
const OPENAI_LEGACY = /you requested \d+ tokens \((\d+) in the messages, (\d+) in the completion\)/;

/** A rough token count for a character count (code and English run 3–4 characters a token). */
const CHARS_PER_TOKEN = 4;

function int(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number.parseInt(text, 10);
  return Number.isSafeInteger(value) ? value : undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** Makes N > M hold and M ≥ 0 whatever the backend's numbers were. */
function finding(promptTokens: number | undefined, maxPromptTokens: number | undefined): OverflowFinding {
  if (promptTokens === undefined || maxPromptTokens === undefined) return { promptTokens: undefined, maxPromptTokens: undefined };
  const max = Math.max(0, maxPromptTokens);
  return { promptTokens: Math.max(promptTokens, max + 1), maxPromptTokens: max };
}

function fromLlama(facts: ErrorFacts): OverflowFinding {
  const nPrompt = count(facts.nPromptTokens);
  const nCtx = count(facts.nCtx);
  if (nPrompt !== undefined && nCtx !== undefined) return finding(nPrompt, nCtx - 1);
  const m = LLAMA_REQUEST.exec(facts.message) ?? LLAMA_INPUT.exec(facts.message);
  if (m === null) return finding(undefined, undefined);
  const ctx = int(m[2]);
  return finding(int(m[1]), ctx === undefined ? undefined : ctx - 1);
}

function fromMaxContext(message: string, maxModelLen: number): OverflowFinding {
  const chars = PROMPT_CHARS.exec(message);
  if (chars !== null) {
    const bound = int(chars[2]);
    const estimate = Math.ceil((int(chars[1]) ?? 0) / CHARS_PER_TOKEN);
    return bound === undefined ? finding(undefined, undefined) : finding(Math.max(estimate, bound + 1), bound);
  }
  const legacy = OPENAI_LEGACY.exec(message);
  if (legacy !== null) {
    const prompt = int(legacy[1]);
    const output = int(legacy[2]) ?? 0;
    return finding(prompt, maxModelLen - output);
  }
  const output = int(REQUESTED_OUTPUT.exec(message)?.[1]) ?? 0;
  return finding(int(PROMPT_TOKENS.exec(message)?.[1]), maxModelLen - output);
}

/** The overflow in this error, or undefined when the error is about something else. */
export function findContextOverflow(facts: ErrorFacts): OverflowFinding | undefined {
  const message = facts.message;
  if (facts.type === 'exceed_context_size_error' || LLAMA_REQUEST.test(message) || LLAMA_INPUT.test(message)) {
    return fromLlama(facts);
  }
  if (LLAMA_NO_NUMBERS.test(message)) return finding(undefined, undefined);
  const maxContext = MAX_CONTEXT.exec(message);
  if (maxContext !== null) {
    const maxModelLen = int(maxContext[1]);
    return maxModelLen === undefined ? finding(undefined, undefined) : fromMaxContext(message, maxModelLen);
  }
  if (facts.type === 'context_length_exceeded') return finding(undefined, undefined);
  return undefined;
}

/** The message Claude Code sees for a finding. */
export function overflowMessage(found: OverflowFinding): string {
  return found.promptTokens === undefined || found.maxPromptTokens === undefined
    ? CONTEXT_OVERFLOW_WITHOUT_NUMBERS
    : contextOverflowMessage(found.promptTokens, found.maxPromptTokens);
}

/**
 * The 400 the server answers with when it decides itself that the prompt does
 * not fit (see clampMaxTokens). N is raised to M + 1 if needed so Claude Code
 * sees a positive gap.
 */
export function contextOverflowError(promptTokens: number, maxPromptTokens: number, original = ''): TranslatedError {
  return errorResponse({
    status: 400,
    type: 'invalid_request_error',
    message: overflowMessage(finding(count(promptTokens), count(maxPromptTokens))),
    kind: 'context_overflow',
    original,
  });
}
