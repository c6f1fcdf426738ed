/**
 * The router's HTTP surface (server-models.cpp `server_models_routes`): `/models` and `/v1/models` list every model
 * with its state; `/props` without `?model=` is the router's own; `/props`, `/slots`, `/metrics` with `?model=` and
 * every POST are sent to that model's instance, loading it first unless `autoload=false` (then 400 "model is not
 * loaded"). A missing model name is 400 "model name is missing from the request", an unknown one 400
 * "model 'x' not found"; a load that fails is 500 "model name=x failed to load".
 */
import { sendJson } from './http-io.js';
import { llamaError, type ErrorReply } from './llama-errors.js';
import { propsBody, routerModelsBody, routerPropsBody } from './llama-info.js';
import type { LlamaEngine } from './llama-messages.js';
import { RouterRefusal, type RouterSim } from './llama-router.js';
import type { Exchange, ResolvedOptions } from './sim-state.js';

export type InstanceGet = (engine: LlamaEngine, asModel: ResolvedOptions) => void;

/** The model named by `name`, loaded and ready for one request (the returned release ends its use), or the router's refusal. */
export async function routeToInstance(
  router: RouterSim,
  name: string | undefined,
  ex: Exchange,
  autoload: boolean,
  touch: boolean,
): Promise<{ engine: LlamaEngine; model: string; release: () => void } | ErrorReply> {
  if (name === undefined || name === '') return llamaError('model name is missing from the request', 'invalid_request_error');
  if (!router.has(name)) return llamaError(`model '${name}' not found`, 'invalid_request_error');
  if (!autoload && !router.isRunning(name)) return llamaError('model is not loaded', 'invalid_request_error');
  try {
    if (autoload) await router.ensureReady(name, ex.signal);
  } catch (err) {
    if (err instanceof RouterRefusal) return llamaError(err.message, err.type);
    throw err;
  }
  return { engine: router.engineOf(name), model: name, release: router.use(name, touch) };
}

/** GET on a router: its own listing and props, or the named model's instance through `instanceGet`. */
export async function routerGet(router: RouterSim, o: ResolvedOptions, ex: Exchange, path: string, instanceGet: InstanceGet): Promise<void> {
  const query = new URL(ex.rec.url, 'http://sim').searchParams;
  const name = query.get('model') ?? undefined;
  if (path === '/models' || path === '/v1/models') {
    const models = router.list().map((m) => ({ id: m.id, status: m.status, context: m.loaded ? router.contextOf(m.id) : undefined }));
    return sendJson(ex.res, 200, routerModelsBody(o, models));
  }
  if (path === '/props' && name === undefined) return sendJson(ex.res, 200, routerPropsBody(o, router.modelsMax));
  const autoloadParam = query.get('autoload');
  const routed = await routeToInstance(router, name, ex, autoloadParam === null || autoloadParam === 'true' || autoloadParam === '1', false);
  if ('status' in routed) return sendJson(ex.res, routed.status, routed.body);
  try {
    const asModel: ResolvedOptions = { ...o, modelId: routed.model, modelFile: router.fileOf(routed.model), context: router.contextOf(routed.model), slots: routed.engine.pool.slots.length };
    if (path === '/props') return sendJson(ex.res, 200, propsBody(asModel));
    instanceGet(routed.engine, asModel);
  } finally {
    routed.release();
  }
}
