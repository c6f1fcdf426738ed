/**
 * Lowers `max_tokens` so prompt + output fits a backend that counts the output
 * against the window, or says the prompt alone does not fit. Owns only the
 * `max_tokens` field; the caller supplies the numbers (no I/O here).
 *
 * Why: vLLM rejects `prompt + max_tokens > max_model_len` (on /v1/messages as
 * a 500 "This model's maximum context length is …"), and Claude Code sends
 * `max_tokens: 32000` by default, so a 32k server fails even a short prompt
 * (docs/backends.md §4). llama.cpp only checks the prompt and stops generation at
 * the window end, so the caller passes `enforce: false` there.
 *
 * The vLLM rule comes in two pure halves around one count (prepare-request.ts
 * does the I/O): promptGuessIfTight says whether the prompt must be counted,
 * fitVllmWindow lowers max_tokens or says the prompt is too long.
 */
import { contextOverflowMessage } from '../translate/context-overflow.js';
import { isRecord, withKey } from '../json/json-shape.js';

/**
 * Output tokens we insist on leaving room for. Below this a turn cannot even
 * hold one tool call, and a reply cut at `max_tokens` helps nobody; answering
 * "prompt is too long" instead makes Claude Code compact and retry.
 */
export const DEFAULT_MIN_OUTPUT_TOKENS = 1024;

export interface MaxTokensOptions {
  /** The backend's per-request window (vLLM max_model_len, llama.cpp per-slot n_ctx). */
  readonly window: number;
  /** Prompt size in tokens (count_tokens, or an estimate). */
  readonly promptTokens: number;
  /** Whether the backend rejects prompt + max_tokens > window (vLLM: yes; llama.cpp: no). */
  readonly enforce: boolean;
  /** Floor for the lowered value; the request's own max_tokens, or a quarter of the window, wins when smaller. */
  readonly minOutputTokens?: number;
}

/** The prompt does not fit: the server should answer 400 with `message` instead of forwarding. */
export interface ContextOverflow {
  readonly promptTokens: number;
  /** Largest prompt the backend accepts with this request's output floor; always < promptTokens. */
  readonly maxPromptTokens: number;
  /** `prompt is too long: N tokens > M maximum`, the text Claude Code compacts on. */
  readonly message: string;
}

export interface MaxTokensResult {
  /** The input object itself when nothing changed. */
  readonly body: unknown;
  readonly changed: boolean;
  readonly loweredFrom: number | undefined;
  readonly overflow: ContextOverflow | undefined;
}

function isCount(value: number): boolean {
  return Number.isFinite(value) && value >= 0;
}

/**
 * Lowers `max_tokens` to `window − promptTokens` when it would overflow, never
 * below min(max_tokens, minOutputTokens); when even that floor does not fit,
 * returns `overflow` and leaves `max_tokens` alone. A no-op unless `enforce`,
 * and when any number is missing or not a count.
 */
export function clampMaxTokens(body: unknown, options: MaxTokensOptions): MaxTokensResult {
  const unchanged: MaxTokensResult = { body, changed: false, loweredFrom: undefined, overflow: undefined };
  if (!options.enforce || !isRecord(body)) return unchanged;
  const maxTokens = body.max_tokens;
  if (typeof maxTokens !== 'number' || !Number.isFinite(maxTokens) || maxTokens < 1) return unchanged;
  if (!isCount(options.window) || !isCount(options.promptTokens) || options.window < 1) return unchanged;

  const window = Math.floor(options.window);
  const promptTokens = Math.ceil(options.promptTokens);
  const minOutput = Math.max(1, Math.floor(options.minOutputTokens ?? DEFAULT_MIN_OUTPUT_TOKENS));
  // Never reserve more than a quarter of a (tiny) window for output.
  const floor = Math.max(1, Math.min(Math.floor(maxTokens), minOutput, Math.floor(window / 4)));
  const room = window - promptTokens;

  if (room < floor) {
    const maxPromptTokens = window - floor;
    return {
      body,
      changed: false,
      loweredFrom: undefined,
      overflow: { promptTokens, maxPromptTokens, message: contextOverflowMessage(promptTokens, maxPromptTokens) },
    };
  }
  if (maxTokens <= room) return unchanged;
  return { body: withKey(body, 'max_tokens', room), changed: true, loweredFrom: maxTokens, overflow: undefined };
}

/** Pessimistic bytes per token of a JSON request body, so the guess errs towards counting the prompt. */
const BYTES_PER_TOKEN_LOW = 2;

export interface PromptGuessFacts {
  /** vLLM's max_model_len. */
  readonly window: number;
  /** This request's body size. */
  readonly requestBytes: number;
  /** The route's last answered prompt: this one is that plus what the body grew by. */
  readonly lastPrompt: { readonly tokens: number; readonly bytes: number } | undefined;
}

/**
 * The vLLM rule's first half: a guessed prompt size when prompt + max_tokens
 * may not fit the window (then the caller counts the prompt and calls
 * fitVllmWindow); undefined when it surely fits or there is no max_tokens.
 */
export function promptGuessIfTight(body: unknown, facts: PromptGuessFacts): number | undefined {
  const maxTokens = isRecord(body) ? body.max_tokens : undefined;
  if (typeof maxTokens !== 'number') return undefined;
  const last = facts.lastPrompt;
  const guess = last ? last.tokens + Math.max(0, facts.requestBytes - last.bytes) / BYTES_PER_TOKEN_LOW : facts.requestBytes / BYTES_PER_TOKEN_LOW;
  return guess + maxTokens > facts.window ? guess : undefined;
}

export interface WindowFit {
  /** The input object itself when nothing changed. */
  readonly body: unknown;
  /** For requests.jsonl, when max_tokens was lowered. */
  readonly note: string | undefined;
  readonly overflow: ContextOverflow | undefined;
}

/** The vLLM rule's second half: max_tokens lowered to fit `window`, or the prompt is too long. */
export function fitVllmWindow(body: unknown, window: number, prompt: { readonly tokens: number; readonly counted: boolean }): WindowFit {
  const clamp = clampMaxTokens(body, { window, promptTokens: prompt.tokens, enforce: true });
  const note = clamp.changed ? `max_tokens lowered from ${clamp.loweredFrom} to fit ${window} (${prompt.counted ? 'counted' : 'estimated'} prompt)` : undefined;
  return { body: clamp.body, note, overflow: clamp.overflow };
}
