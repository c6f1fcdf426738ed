/**
 * llama.cpp HTTP surface: the pre-routing checks (503 while loading, API key
 * with public-path exemptions), the informational GET endpoints, router-mode
 * model selection, and dispatch of the Anthropic POST routes.
 */
import { sendJson, sendText } from './http-io.js';
import { isRecord, str, type JsonRecord } from './json.js';
import { endpointDisabled, INVALID_API_KEY, llamaError, LOADING, NOT_FOUND, type ErrorReply } from './llama-errors.js';
import { modelsBody, propsBody, slotsBody } from './llama-info.js';
import { handleCountTokens, handleMessages, type LlamaEngine } from './llama-messages.js';
import { LlamaMetrics } from './llama-metrics.js';
import { RouterSim } from './llama-router.js';
import { routerGet, routeToInstance } from './llama-router-routes.js';
import { SlotPool } from './llama-slots.js';
import { nlohmannParseError } from './json-parse-error.js';
import type { Exchange, ResolvedOptions, SimState } from './sim-state.js';
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
  /** Router mode: its models, each loaded on demand with an engine of its own. */
  readonly router: RouterSim | undefined;

  constructor(private readonly state: SimState) {
    const o = state.opts;
    this.engine = { state, pool: new SlotPool(o.slots, o.slotPromptSimilarity, o.cacheRam), metrics: new LlamaMetrics() };
    this.router = o.router && new RouterSim(state, o.router);
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
      if (this.router === undefined) {
        if (path === '/v1/messages/count_tokens') return handleCountTokens(this.engine, ex, body);
        return handleMessages(this.engine, ex, body, this.state.opts.modelId);
      }
      const autoload = new URL(ex.rec.url, 'http://sim').searchParams.get('autoload');
      const routed = await routeToInstance(this.router, str(body['model']), ex, autoload === null || autoload === 'true' || autoload === '1', true);
      if ('status' in routed) return reply(routed);
      try {
        if (path === '/v1/messages/count_tokens') return handleCountTokens(routed.engine, ex, body);
        return await handleMessages(routed.engine, ex, body, routed.model);
      } finally {
        routed.release();
      }
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

  private async handleGet(ex: Exchange, path: string): Promise<void> {
    const o = this.state.opts;
    if (path === '/health' || path === '/v1/health') return sendJson(ex.res, 200, { status: 'ok' });
    if (this.router !== undefined && ['/models', '/v1/models', '/props', '/slots', '/metrics'].includes(path)) {
      return routerGet(this.router, o, ex, path, (engine, asModel) => this.instanceGet(ex, path, engine, asModel));
    }
    switch (path) {
      case '/models':
      case '/v1/models':
        return sendJson(ex.res, 200, modelsBody(o));
      case '/props':
        return sendJson(ex.res, 200, propsBody(o));
      case '/slots':
      case '/metrics':
        return this.instanceGet(ex, path, this.engine, o);
      default:
        return sendJson(ex.res, NOT_FOUND.status, NOT_FOUND.body);
    }
  }

  /** `/slots` and `/metrics` of one instance: the single model's, or a router model's. */
  private instanceGet(ex: Exchange, path: string, engine: LlamaEngine, o: ResolvedOptions): void {
    const { pool, metrics } = engine;
    const query = new URL(ex.rec.url, 'http://sim').searchParams;
    switch (path) {
      case '/slots': {
        if (!o.slotsEndpoint) return sendJson(ex.res, 501, endpointDisabled('slots').body);
        if (query.get('fail_on_no_slot') === '1' && pool.busyCount === pool.slots.length) {
          return sendJson(ex.res, 503, llamaError('no slot available', 'unavailable_error').body);
        }
        return sendJson(ex.res, 200, slotsBody(pool, o.context));
      }
      case '/metrics': {
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
}
