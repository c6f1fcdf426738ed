/**
 * Rewrites the request's `model` to the id the backend serves. Owns only the
 * `model` field.
 *
 * Why: Claude Code sends whatever id it was started with (and the SDK's
 * `setModel` probe another one); vLLM answers 404 "The model `…` does not
 * exist." unless `model` equals a `--served-model-name`, and llama.cpp in router
 * mode routes by it. The job knows the served id, so the shim sets it.
 */
import { isRecord, withKey } from '../json/json-shape.js';

export interface ModelIdResult {
  /** The input object itself when nothing changed. */
  readonly body: unknown;
  readonly changed: boolean;
  /** The previous `model` when it was a string and differed. */
  readonly rewrittenFrom: string | undefined;
}

/**
 * Sets `model` to `servedModel`, in its original key position (appended when
 * the body has none). Returns the input object when it already matches.
 */
export function rewriteModelId(body: unknown, servedModel: string): ModelIdResult {
  if (!isRecord(body) || body.model === servedModel) return { body, changed: false, rewrittenFrom: undefined };
  const previous = body.model;
  return {
    body: withKey(body, 'model', servedModel),
    changed: true,
    rewrittenFrom: typeof previous === 'string' ? previous : undefined,
  };
}
