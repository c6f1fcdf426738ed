/**
 * Loading a model on a router-mode llama-server before a job's session starts, so the session is told the
 * model's real window, and a load that fails ends the job with the router's words instead of Claude Code's
 * retries (docs/backends.md §3.1). `GET /props?model=X` makes the router load X (evicting its least recently used
 * idle model when full: placement has checked that no running job holds one) and answers once the instance is
 * ready, with its `/props`; a failed load answers 500 "model name=X failed to load" (server-models.cpp
 * `ensure_model_ready`).
 */
import { z } from 'zod';
import type { Endpoint } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import { errorMessageOf, httpGet, parseJson } from './http-get.js';

export type RouterLoad =
  /** The model is ready; its instance's per-slot window, when it said. */
  | { readonly ok: true; readonly context: number | undefined }
  /** The router could not load it, in its own words (or why it did not answer). */
  | { readonly ok: false; readonly message: string };

const propsBody = z.looseObject({ default_generation_settings: z.looseObject({ n_ctx: z.number().optional() }).optional() });

/** Seconds between progress ticks while a load runs. */
const TICK_MS = 1000;

export async function loadRouterModel(
  endpoint: Endpoint,
  model: string,
  options: { readonly waitS: number; readonly onTick: (seconds: number) => void },
): Promise<RouterLoad> {
  const started = performance.now();
  const ticker = setInterval(() => options.onTick(Math.round((performance.now() - started) / 1000)), TICK_MS);
  ticker.unref();
  try {
    const url = new URL(`/props?model=${encodeURIComponent(model)}`, endpoint.base_url).href;
    const res = await httpGet(url, { dispatcher: undefined, signal: AbortSignal.timeout(options.waitS * 1000), apiKey: endpoint.apiKey });
    const body = parseJson(res.text);
    if (res.status !== 200) return { ok: false, message: `${endpoint.name} answered HTTP ${res.status}: ${errorMessageOf(body) ?? res.text.slice(0, 200)}` };
    const n = propsBody.safeParse(body).data?.default_generation_settings?.n_ctx;
    return { ok: true, context: n !== undefined && n > 0 ? n : undefined };
  } catch (err) {
    return { ok: false, message: `${endpoint.name} did not finish loading ${model} within ${options.waitS} s (${errorMessage(err)})` };
  } finally {
    clearInterval(ticker);
  }
}
