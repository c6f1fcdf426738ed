/**
 * Probe of a llama.cpp llama-server: /v1/models (ids, per-slot n_ctx), /props
 * (slots, endpoint flags, template caps), /slots (busy/free), /metrics.
 * Facts: docs/backends.md §3.
 */
import { z } from 'zod';
import { errorMessageOf, parseJson } from './http-get.js';
import { routerModelFacts, routerSlots, routerStatusBody, type RouterModelFacts } from './llama-router.js';
import { metricValue, parsePrometheus } from './prometheus.js';
import { contextWarning, findings, optional, type BackendProber } from './probe-context.js';
import type { ContextSource, LoadMetrics, ServedModel, SlotUsage } from './types.js';

const modelsBody = z.object({
  data: z.array(
    z.looseObject({
      id: z.string(),
      aliases: z.array(z.string()).optional(),
      meta: z.looseObject({ n_ctx: z.number().optional(), n_ctx_train: z.number().optional(), n_params: z.number().optional(), size: z.number().optional() }).optional(),
      status: routerStatusBody.optional(),
      architecture: z.looseObject({ input_modalities: z.array(z.string()).optional() }).optional(),
    }),
  ),
});

const propsBody = z.looseObject({
  role: z.string().optional(),
  max_instances: z.number().optional(),
  model_path: z.string().optional(),
  total_slots: z.number().optional(),
  default_generation_settings: z.looseObject({ n_ctx: z.number().optional() }).optional(),
  endpoint_slots: z.boolean().optional(),
  endpoint_metrics: z.boolean().optional(),
  build_info: z.string().optional(),
  chat_template_caps: z.looseObject({ supports_tool_calls: z.boolean().optional() }).optional(),
  // b9553 says {vision, audio}, de3ff815 {vision, video, audio}; builds before multimodal support say nothing.
  modalities: z.looseObject({ vision: z.boolean().optional() }).optional(),
});

const slotsBody = z.array(z.looseObject({ n_ctx: z.number().optional(), is_processing: z.boolean().optional() }));

const SLOT_FIX = 'give each slot more with -c, or fewer --parallel';

export const probeLlamaCpp: BackendProber = async (ctx) => {
  // All four in parallel: the probe must fit in probe_timeout_s, and /v1/models is public even with --api-key.
  const [modelsRes, propsRes, slotsRes, metricsRes] = await Promise.all([
    ctx.get('/v1/models'),
    optional(ctx.get('/props')),
    optional(ctx.get('/slots')),
    optional(ctx.get('/metrics')),
  ]);
  const modelsJson = parseJson(modelsRes.text);
  if (modelsRes.status === 503) return findings.loading('llama-server', errorMessageOf(modelsJson));
  if (modelsRes.status === 401 || propsRes?.status === 401) return findings.needsKey(ctx.endpoint, 'llama-server --api-key');
  const models = modelsBody.safeParse(modelsJson);
  if (modelsRes.status !== 200 || !models.success) {
    return findings.failed(`GET /v1/models answered HTTP ${modelsRes.status}; is this a llama-server? (${modelsRes.text.slice(0, 120)})`);
  }

  const props = propsRes?.status === 200 ? propsBody.safeParse(parseJson(propsRes.text)).data : undefined;
  const slotList = slotsRes?.status === 200 ? slotsBody.safeParse(parseJson(slotsRes.text)).data : undefined;
  const metricsOn = metricsRes?.status === 200;
  const samples = metricsOn ? parsePrometheus(metricsRes.text) : [];
  const router = props?.role === 'router';
  const warnings: string[] = [];

  const routerFacts = router ? await routerModelFacts(ctx, models.data.data.map((m) => ({ id: m.id, status: m.status, n_ctx: m.meta?.n_ctx }))) : [];
  const served: ServedModel[] = models.data.data.map((m, i) => {
    const facts = routerFacts[i];
    const { context, contextSource } = facts !== undefined ? routerWindow(facts) : plainWindow(m.meta?.n_ctx, props?.default_generation_settings?.n_ctx, slotList?.[0]?.n_ctx);
    return {
      id: m.id,
      aliases: (m.aliases ?? []).filter((a) => a !== m.id),
      context,
      contextSource,
      routerStatus: m.status?.value,
      router: facts?.router,
      // A router's /props is its own, not a model's: each model says it in /v1/models.
      vision: router ? m.architecture?.input_modalities?.includes('image') : props?.modalities?.vision,
      warnings: contextWarning(m.id, context, SLOT_FIX),
      // A router's model_path is "none": each model runs in a child of its own.
      file: router ? undefined : props?.model_path,
      fingerprint: m.meta?.n_params !== undefined && m.meta.size !== undefined ? `${m.meta.n_params} parameters, ${m.meta.size} bytes` : undefined,
    };
  });

  const slots = router ? routerSlots(routerFacts) : slotUsage(slotList, props?.total_slots, samples);
  const metrics: LoadMetrics = router
    ? routerMetrics(routerFacts)
    : {
        enabled: metricsOn,
        requestsRunning: metricValue(samples, 'llamacpp:requests_processing'),
        requestsWaiting: metricValue(samples, 'llamacpp:requests_deferred'),
      };
  if (!metricsOn && !router) warnings.push('metrics are off: start llama-server with --metrics for load and cache statistics per job');
  if (slotList === undefined && props?.endpoint_slots === false && !router) {
    warnings.push('/slots is off: start llama-server with --slots to see busy/free slots');
  }
  const toolCalls = props?.chat_template_caps?.supports_tool_calls;
  if (toolCalls === false) {
    warnings.push('the chat template cannot call tools: start llama-server with --jinja (and a tool-capable template)');
  }

  return {
    state: 'up',
    hostState: 'up',
    reason: served.length === 0 ? 'up, but serves no model' : `up, serving ${served.map((m) => m.id).join(', ')}`,
    models: served,
    slots,
    metrics,
    server: { build: props?.build_info, router, toolCalls, maxInstances: router ? props?.max_instances : undefined },
    warnings,
  };
};

const positive = (n: number | undefined): number | undefined => (n !== undefined && n > 0 ? n : undefined);

/** A plain server's per-slot window: /v1/models, else /props, else /slots (docs/backends.md §3). */
function plainWindow(fromModels: number | undefined, fromProps: number | undefined, fromSlots: number | undefined): { context: number | undefined; contextSource: ContextSource } {
  if (positive(fromModels) !== undefined) return { context: fromModels, contextSource: 'llama.cpp /v1/models meta.n_ctx (per slot)' };
  if (positive(fromProps) !== undefined) return { context: fromProps, contextSource: 'llama.cpp /props n_ctx (per slot)' };
  if (positive(fromSlots) !== undefined) return { context: fromSlots, contextSource: 'llama.cpp /slots n_ctx' };
  return { context: undefined, contextSource: 'unknown' };
}

/** A router model's window: its loaded instance's, else the one the router's arguments for it give. */
function routerWindow(facts: RouterModelFacts): { context: number | undefined; contextSource: ContextSource } {
  if (facts.context === undefined) return { context: undefined, contextSource: 'unknown' };
  return {
    context: facts.context,
    contextSource: facts.fromInstance ? 'llama.cpp /v1/models meta.n_ctx (per slot)' : "llama.cpp router's arguments for the model (--ctx-size / --parallel)",
  };
}

/** A router's load: the sum over its loaded instances that have --metrics. */
function routerMetrics(facts: readonly RouterModelFacts[]): LoadMetrics {
  const on = facts.map((f) => f.router.metrics).filter((m): m is LoadMetrics => m !== undefined);
  if (on.length === 0) return { enabled: false };
  const sum = (pick: (m: LoadMetrics) => number | undefined): number => on.reduce((n, m) => n + (pick(m) ?? 0), 0);
  return { enabled: true, requestsRunning: sum((m) => m.requestsRunning), requestsWaiting: sum((m) => m.requestsWaiting) };
}

function slotUsage(
  slotList: z.infer<typeof slotsBody> | undefined,
  totalSlots: number | undefined,
  samples: ReturnType<typeof parsePrometheus>,
): SlotUsage | undefined {
  if (slotList !== undefined && slotList.length > 0) {
    const busy = slotList.filter((s) => s.is_processing === true).length;
    return { total: slotList.length, busy, free: slotList.length - busy, source: '/slots' };
  }
  if (totalSlots === undefined || totalSlots <= 0) return undefined;
  const processing = metricValue(samples, 'llamacpp:requests_processing');
  if (processing !== undefined) {
    const busy = Math.min(totalSlots, processing);
    return { total: totalSlots, busy, free: totalSlots - busy, source: '/metrics' };
  }
  return { total: totalSlots, busy: 0, free: totalSlots, source: '/props' };
}
