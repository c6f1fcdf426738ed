/**
 * Neutralises the per-request `cch=` hash in Claude Code's billing-header
 * system block. Owns only the first block of the top-level `system`.
 *
 * Why: Claude Code puts `x-anthropic-billing-header: cc_version=…; cc_entrypoint=…; cch=XXXXX;`
 * first in the system prompt, and the 5-character `cch` value changes on every
 * request (against first-party hosts). A byte that changes at the very start of
 * the prompt throws away the whole KV cache: llama.cpp measured LCP similarity
 * stuck at 18 577 tokens until it began rewriting the value to `fffff`
 * (llama.cpp PR #21793). We do the same here so that vLLM (which only drops the
 * block in array form) and older llama.cpp builds keep the prefix too.
 */
import { isRecord, isTextBlock, withKey } from '../json/json-shape.js';

export const BILLING_HEADER_PREFIX = 'x-anthropic-billing-header:';

/** `cch=` then exactly 5 characters then `;`, as llama.cpp's normaliser requires. */
const CCH = /cch=([^;]{5});/;
const NEUTRAL = '00000';

export interface BillingHeaderResult {
  /** The input object itself when nothing changed. */
  readonly body: unknown;
  readonly changed: boolean;
}

/** The header text with its cch value set to 00000, or undefined when there is nothing to change. */
function neutralise(text: string): string | undefined {
  if (!text.startsWith(BILLING_HEADER_PREFIX)) return undefined;
  const match = CCH.exec(text);
  if (match === null || match[1] === NEUTRAL) return undefined;
  return text.slice(0, match.index) + `cch=${NEUTRAL};` + text.slice(match.index + match[0].length);
}

/**
 * Sets the `cch=` value of a billing header in `system` (string form, or the
 * first text block of the array form) to `00000`. Returns the input object
 * when there is no header, no cch value, or it is already neutral.
 */
export function neutraliseBillingHeader(body: unknown): BillingHeaderResult {
  const unchanged: BillingHeaderResult = { body, changed: false };
  if (!isRecord(body)) return unchanged;
  const system = body.system;
  if (typeof system === 'string') {
    const text = neutralise(system);
    return text === undefined ? unchanged : { body: withKey(body, 'system', text), changed: true };
  }
  if (!Array.isArray(system)) return unchanged;
  const blocksIn: readonly unknown[] = system;
  const first = blocksIn[0];
  if (!isTextBlock(first)) return unchanged;
  const text = neutralise(first.text);
  if (text === undefined) return unchanged;
  const blocks: unknown[] = [withKey(first, 'text', text), ...blocksIn.slice(1)];
  return { body: withKey(body, 'system', blocks), changed: true };
}
