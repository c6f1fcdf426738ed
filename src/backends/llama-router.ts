/**
 * The router-mode half of the llama.cpp probe (docs/backends.md §3.1). A probe must never load a model: a router
 * loads one on any request naming it, and may evict another to make room. So a model that is not loaded is read
 * only from `GET /models` (its state, and the window its `status.args` will give it); a loaded one is asked through
 * `?model=…&autoload=false` (`/props`, `/slots`, `/metrics` of its own instance), which the router answers 400
 * "model is not loaded" instead of loading, should the model go away between the two looks.
 */
import { z } from 'zod';
import { parseJson } from './http-get.js';
import { metricValue, parsePrometheus } from './prometheus.js';
import { optional, type ProbeContext } from './probe-context.js';
import { slotsFromArgs, windowFromArgs } from './router-args.js';
import type { LoadMetrics, RouterModel, SlotUsage } from './types.js';

export const routerStatusBody = z.looseObject({
  value: z.string().optional(),
  args: z.array(z.string()).optional(),
  failed: z.boolean().optional(),
  exit_code: z.number().optional(),
});

const propsBody = z.looseObject({
  total_slots: z.number().optional(),
  default_generation_settings: z.looseObject({ n_ctx: z.number().optional() }).optional(),
});

const slotsBody = z.array(z.looseObject({ n_ctx: z.number().optional(), is_processing: z.boolean().optional() }));

/** What the router and a model's instance say of one model. */
export interface RouterModelFacts {
  readonly router: RouterModel;
  /** Per-slot window: the instance's own, else the one its arguments give. */
  readonly context: number | undefined;
  readonly fromInstance: boolean;
}

/** A model whose instance answers requests: loaded (a sleeping one would be woken by a request, so it is left alone). */
export const isLoaded = (status: string | undefined): boolean => status === 'loaded';

const modelQuery = (id: string): string => `?model=${encodeURIComponent(id)}&autoload=false`;

/** Reads one loaded model's instance: its window, slots and load. */
async function instanceFacts(ctx: ProbeContext, id: string): Promise<{ context?: number; slots?: SlotUsage; metrics?: LoadMetrics }> {
  const q = modelQuery(id);
  const [propsRes, slotsRes, metricsRes] = await Promise.all([optional(ctx.get(`/props${q}`)), optional(ctx.get(`/slots${q}`)), optional(ctx.get(`/metrics${q}`))]);
  const props = propsRes?.status === 200 ? propsBody.safeParse(parseJson(propsRes.text)).data : undefined;
  const slotList = slotsRes?.status === 200 ? slotsBody.safeParse(parseJson(slotsRes.text)).data : undefined;
  const samples = metricsRes?.status === 200 ? parsePrometheus(metricsRes.text) : undefined;
  const context = props?.default_generation_settings?.n_ctx ?? slotList?.[0]?.n_ctx;
  let slots: SlotUsage | undefined;
  if (slotList !== undefined && slotList.length > 0) {
    const busy = slotList.filter((s) => s.is_processing === true).length;
    slots = { total: slotList.length, busy, free: slotList.length - busy, source: '/slots' };
  } else if (props?.total_slots !== undefined && props.total_slots > 0) {
    slots = { total: props.total_slots, busy: 0, free: props.total_slots, source: '/props' };
  }
  const metrics: LoadMetrics | undefined =
    samples === undefined
      ? undefined
      : { enabled: true, requestsRunning: metricValue(samples, 'llamacpp:requests_processing'), requestsWaiting: metricValue(samples, 'llamacpp:requests_deferred') };
  return { context: context !== undefined && context > 0 ? context : undefined, slots, metrics };
}

/** The router's facts of every model, reading the loaded ones' instances in parallel. */
export async function routerModelFacts(
  ctx: ProbeContext,
  models: readonly { id: string; status?: z.infer<typeof routerStatusBody> | undefined; n_ctx?: number | undefined }[],
): Promise<RouterModelFacts[]> {
  return Promise.all(
    models.map(async (m) => {
      const fromArgs = windowFromArgs(m.status?.args ?? []);
      const failedExitCode = m.status?.failed === true ? (m.status.exit_code ?? -1) : undefined;
      const { slots } = slotsFromArgs(m.status?.args ?? []);
      const planned: SlotUsage | undefined = m.status?.args === undefined ? undefined : { total: slots, busy: 0, free: slots, source: 'router arguments' };
      if (!isLoaded(m.status?.value)) {
        return { router: { failedExitCode, slots: planned }, context: fromArgs?.context, fromInstance: false };
      }
      const instance = await instanceFacts(ctx, m.id);
      const context = m.n_ctx ?? instance.context;
      return {
        router: { failedExitCode, slots: instance.slots ?? planned, metrics: instance.metrics },
        context: context ?? fromArgs?.context,
        fromInstance: context !== undefined,
      };
    }),
  );
}

/** The router's slots: the sum over its loaded models' instances (undefined when none is loaded). */
export function routerSlots(facts: readonly RouterModelFacts[]): SlotUsage | undefined {
  const loaded = facts.map((f) => f.router.slots).filter((s): s is SlotUsage => s !== undefined && s.source !== 'router arguments');
  if (loaded.length === 0) return undefined;
  const total = loaded.reduce((n, s) => n + s.total, 0);
  const busy = loaded.reduce((n, s) => n + s.busy, 0);
  return { total, busy, free: total - busy, source: '/slots' };
}
