/**
 * request_model's answer: where a model is live now, or the model_unavailable
 * message to relay to the user. The same resolution a job goes through, so
 * "live here" means a job for it would start there.
 */
import type { EndpointProbe } from '../backends/types.js';
import type { Config } from '../config/schema.js';
import { isLocalAgentsError } from '../errors.js';
import { resolveModel } from './resolve.js';

export interface LivePlace {
  readonly endpoint: string;
  readonly served_model: string;
  readonly context: number | undefined;
  readonly context_source: string;
}

export type ModelAvailability =
  | { readonly model: string; readonly available: true; readonly matched_by: string; readonly live_on: readonly LivePlace[] }
  | {
      readonly model: string;
      readonly available: false;
      /** The model_unavailable message, word for word. */
      readonly message: string;
      readonly hint: string | undefined;
      readonly [detail: string]: unknown;
    };

export function modelAvailability(config: Config, probes: readonly EndpointProbe[], model: string): ModelAvailability {
  try {
    const resolution = resolveModel(config, probes, { model });
    return {
      model,
      available: true,
      matched_by: resolution.matchedBy,
      live_on: resolution.candidates.map((c) => ({ endpoint: c.endpoint.name, served_model: c.model.id, context: c.context, context_source: c.contextSource })),
    };
  } catch (err) {
    if (!isLocalAgentsError(err) || err.code !== 'model_unavailable') throw err;
    return { ...err.details, model, available: false, message: err.message, hint: err.hint };
  }
}
