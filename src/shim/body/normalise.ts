/**
 * Composes the request rewrite rules (shim/rewrite/*) into the one call the
 * server makes per /v1/messages request. Owns the order of the rules and the
 * report; each rule owns its own field. Everything the rules do not touch is
 * kept as it was, in the same key order, so JSON.stringify of the result
 * differs from the input only where a rule acted. When `changed` is false the
 * server should forward the original bytes.
 */
import { neutraliseBillingHeader } from '../rewrite/billing-header.js';
import { foldSystemMessages } from '../rewrite/fold-system-messages.js';
import { namePerJobValues, type PerJobValue } from '../rewrite/per-job-values.js';
import { clampMaxTokens, type ContextOverflow, type MaxTokensOptions } from '../rewrite/max-tokens.js';
import { rewriteModelId } from '../rewrite/model-id.js';
import { stripFields } from '../rewrite/strip-fields.js';
import { strictToolCallIds } from '../rewrite/tool-call-ids.js';
import { toolTurnText } from '../rewrite/tool-turn-text.js';
import { referenceBlocksAsText } from '../rewrite/reference-blocks-as-text.js';
import type { MediaReplacement } from '../rewrite/images-as-text.js';

export interface NormaliseOptions {
  /** The id the backend serves; `model` is set to it. */
  readonly servedModel: string;
  /**
   * Window and prompt size for the max_tokens clamp; omit when unknown (the
   * server can also call clampMaxTokens itself after count_tokens).
   */
  readonly maxTokens?: MaxTokensOptions | undefined;
  /** Top-level fields the backend rejects; none by default. */
  readonly stripFields?: readonly string[] | undefined;
  /** Values that differ per job (session id, temp folder): named in the environment block, stated after the task. */
  readonly perJobValues?: readonly PerJobValue[] | undefined;
}

export interface NormaliseNotes {
  foldedSystemMessages: number;
  /** System messages left in place because their content was not plain text. */
  unfoldedSystemMessages?: number;
  billingHashNeutralised: boolean;
  /** Per-job values named in the environment block. */
  perJobValuesNamed?: number;
  modelRewrittenFrom?: string;
  maxTokensLoweredFrom?: number;
  strippedFields?: string[];
  /** User messages whose text went into their last tool result. */
  toolTurnTextMoved?: number;
  toolIdsRewritten?: number;
  /** tool_reference and search_result blocks turned into text. */
  referenceBlocksAsText?: number;
  /** Images and documents turned into text (shim/body/media.ts runs after these rules: it is async). */
  mediaReplaced?: readonly MediaReplacement[];
}

export interface NormaliseResult {
  /** The input object itself when `changed` is false. */
  readonly body: unknown;
  readonly changed: boolean;
  readonly notes: NormaliseNotes;
  /** Set when the prompt alone does not fit: answer contextOverflowError() instead of forwarding. */
  readonly overflow?: ContextOverflow;
}

/**
 * Applies, in order: model id, billing-header hash, system-message fold,
  * per-job values named, a tool turn's text into its tool result, tool call ids, field
  * stripping, tool_reference/search_result as text, max_tokens clamp. Never throws; a body that is not a JSON
 * object comes back untouched.
 */
export function normaliseRequest(body: unknown, options: NormaliseOptions): NormaliseResult {
  const model = rewriteModelId(body, options.servedModel);
  const billing = neutraliseBillingHeader(model.body);
  const fold = foldSystemMessages(billing.body);
  const perJob = namePerJobValues(fold.body, options.perJobValues ?? []);
  const turnText = toolTurnText(perJob.body);
  const ids = strictToolCallIds(turnText.body);
  const strip = stripFields(ids.body, options.stripFields ?? []);
  const references = referenceBlocksAsText(strip.body);
  const clamp = options.maxTokens === undefined ? undefined : clampMaxTokens(references.body, options.maxTokens);

  const notes: NormaliseNotes = {
    foldedSystemMessages: fold.folded,
    billingHashNeutralised: billing.changed,
  };
  if (fold.unfoldable > 0) notes.unfoldedSystemMessages = fold.unfoldable;
  if (perJob.named > 0) notes.perJobValuesNamed = perJob.named;
  if (model.rewrittenFrom !== undefined) notes.modelRewrittenFrom = model.rewrittenFrom;
  if (clamp?.loweredFrom !== undefined) notes.maxTokensLoweredFrom = clamp.loweredFrom;
  if (strip.stripped.length > 0) notes.strippedFields = [...strip.stripped];
  if (turnText.moved > 0) notes.toolTurnTextMoved = turnText.moved;
  if (ids.rewritten > 0) notes.toolIdsRewritten = ids.rewritten;
  if (references.replaced > 0) notes.referenceBlocksAsText = references.replaced;

  const finalBody = clamp?.body ?? references.body;
  const result: NormaliseResult = { body: finalBody, changed: finalBody !== body, notes };
  return clamp?.overflow === undefined ? result : { ...result, overflow: clamp.overflow };
}
