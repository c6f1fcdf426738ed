/**
 * llama.cpp HTTP surface: the pre-routing checks (503 while loading, API key
 * with public-path exemptions), the informational GET endpoints, router-mode
 * model selection, and dispatch of the Anthropic POST routes.
 */
import { sendJson, sendText } from './http-io.js';
import { isRecord, str, type JsonRecord } from './json.js';
import { endpointDisabled, INVALID_API_KEY, llamaError, LOADING, NOT_FOUND, type ErrorReply } from './llama-errors.js';
import { modelsBody, propsBody, routerModelsBody, routerPropsBody, slotsBody } from './llama-info.js';
import { handleCountTokens, handleMessages, type LlamaEngine } from './llama-messages.js';
import { LlamaMetrics } from './llama-metrics.js';
import { SlotPool } from './llama-slots.js';
import { nlohmannParseError } from './json-parse-error.js';
import type { Exchange, SimState } from './sim-state.js';
import type { LlamaBuild } from './types.js';

/** Paths served without the API key: docs/backends.md §2.2 for b9553/August; the pinned source's server-http.cpp:251 for sep2026. */
const PUBLIC_PATHS: Record<LlamaBuild, ReadonlySet<string>> = {
  b9553: new Set(['/health', '/v1/health', '/models', '/v1/models', '/']),
  aug2026: new Set(['/health', '/v1/health', '/models', '/v1/models', '/']),
  sep2026: new Set(['/health', '/v1/health', '/']),
};
const PROCESS_START = Math.floor(performance.timeOrigin * 1000) % 1_000_000_000;

export class LlamaHandler {
  private readonly engine: LlamaEngine;

  constructor(private readonly state: SimState) {
    const o = state.opts;
    this.engine = { state, pool: new SlotPool(o.slots, o.slotPromptSimilarity, o.cacheRam), metrics: new LlamaMetrics() };
  }

  async handle(ex: Exchange): Promise<void> {
    const { method, path } = ex.rec;
    const reply = (e: ErrorReply): void => sendJson(ex.res, e.status, e.body);
    if (method === 'OPTIONS') return sendText(ex.res, 200, '');
    if (this.state.isLoading()) return reply(LOADING);
    if (!PUBLIC_PATHS[this.state.opts.llamaBuild].has(path) && !this.authorized(ex)) return reply(INVALID_API_KEY);

    if (method === 'GET') return this.handleGet(ex, path);
    if (method === 'POST' && (path === '/v1/messages' || path === '/v1/messages/count_tokens')) {
      if (path === '/v1/messages/count_tokens' && !this.state.opts.countTokens) return reply(NOT_FOUND);
      const parseError = nlohmannParseError(ex.rec.bodyText);
      if (parseError !== undefined) return reply(llamaError(parseError, 'server_error'));
      const body: JsonRecord = isRecord(ex.rec.json) ? ex.rec.json : {};
      const routed = this.routeModel(body);
      if (typeof routed !== 'string') return reply(routed);
      if (path === '/v1/messages/count_tokens') return handleCountTokens(this.engine, ex, body);
      return handleMessages(this.engine, ex, body, routed);
    }
    return reply(NOT_FOUND);
  }

  /** `Authorization` (optional "Bearer ") wins; `X-Api-Key` is read only when it is absent. */
  private authorized(ex: Exchange): boolean {
    const key = this.state.opts.apiKey;
    if (key === undefined) return true;
    const h = ex.rec.headers;
    let given = h['authorization'] ?? '';
    if (given === '') given = h['x-api-key'] ?? '';
    if (given.startsWith('Bearer ')) given = given.slice('Bearer '.length);
    return given === key;
  }

  /** The response `model`: the alias in single-model mode, the requested id in router mode. */
  private routeModel(body: JsonRecord): string | ErrorReply {
    const router = this.state.opts.routerModels;
    if (router === undefined) return this.state.opts.modelId;
    const model = str(body['model']);
    if (model === undefined || model === '') return llamaError('model name is missing from the request', 'invalid_request_error');
    if (!router.includes(model)) return llamaError(`model '${model}' not found`, 'invalid_request_error');
    return model;
  }

  private handleGet(ex: Exchange, path: string): void {
    const o = this.state.opts;
    const { pool, metrics } = this.engine;
    const query = new URL(ex.rec.url, 'http://sim').searchParams;
    const routerModel = query.get('model');
    const router = o.routerModels;
    if (router !== undefined && routerModel !== null && !router.includes(routerModel)) {
      return sendJson(ex.res, 400, llamaError(`model '${routerModel}' not found`, 'invalid_request_error').body);
    }
    const asModel = routerModel === null ? o : { ...o, modelId: routerModel, modelFile: `/models/${routerModel}.gguf` }; // as routerModelsBody's --model
    switch (path) {
      case '/health':
      case '/v1/health':
        return sendJson(ex.res, 200, { status: 'ok' });
      case '/models':
      case '/v1/models':
        return sendJson(ex.res, 200, router === undefined ? modelsBody(o) : routerModelsBody(o, router));
      case '/props':
        return sendJson(ex.res, 200, router !== undefined && routerModel === null ? routerPropsBody(o) : propsBody(asModel));
      case '/slots': {
        if (router !== undefined && routerModel === null) return this.missingModel(ex);
        if (!o.slotsEndpoint) return sendJson(ex.res, 501, endpointDisabled('slots').body);
        if (query.get('fail_on_no_slot') === '1' && pool.busyCount === o.slots) {
          return sendJson(ex.res, 503, llamaError('no slot available', 'unavailable_error').body);
        }
        return sendJson(ex.res, 200, slotsBody(pool, o.context));
      }
      case '/metrics': {
        if (router !== undefined && routerModel === null) return this.missingModel(ex);
        if (!o.metrics) return sendJson(ex.res, 501, endpointDisabled('metrics').body);
        const text = metrics.render(o.llamaBuild, pool.busyCount, pool.queuedCount);
        return sendText(ex.res, 200, text, {
          'Content-Type': 'text/plain; version=0.0.4',
          'Process-Start-Time-Unix': String(PROCESS_START),
        });
      }
      default:
        return sendJson(ex.res, NOT_FOUND.status, NOT_FOUND.body);
    }
  }

  private missingModel(ex: Exchange): void {
    sendJson(ex.res, 400, llamaError('model name is missing from the request', 'invalid_request_error').body);
  }
}
