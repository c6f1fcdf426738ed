/**
 * Probe of a vLLM server: /v1/models (ids, max_model_len) and /metrics
 * (running/waiting requests, KV-cache usage); `root` is the weights a served name runs on. Facts: docs/backends.md §5.
 */
import { z } from 'zod';
import { errorMessageOf, parseJson } from './http-get.js';
import { metricValue, parsePrometheus } from './prometheus.js';
import { contextWarning, findings, optional, type BackendProber } from './probe-context.js';
import type { ServedModel } from './types.js';

const modelsBody = z.object({
  data: z.array(z.looseObject({ id: z.string(), max_model_len: z.number().optional(), parent: z.string().nullable().optional(), root: z.string().optional() })),
});

export const probeVllm: BackendProber = async (ctx) => {
  const [modelsRes, metricsRes] = await Promise.all([ctx.get('/v1/models'), optional(ctx.get('/metrics'))]);
  const modelsJson = parseJson(modelsRes.text);
  if (modelsRes.status === 401) return findings.needsKey(ctx.endpoint, 'vllm --api-key (vLLM accepts only Authorization: Bearer)');
  if (modelsRes.status === 503) return findings.loading('vLLM', errorMessageOf(modelsJson));
  const models = modelsBody.safeParse(modelsJson);
  if (modelsRes.status !== 200 || !models.success) {
    return findings.failed(`GET /v1/models answered HTTP ${modelsRes.status}; is this a vLLM server? (${modelsRes.text.slice(0, 120)})`);
  }
  const served: ServedModel[] = models.data.data.map((m) => ({
    id: m.id,
    aliases: [],
    context: m.max_model_len,
    contextSource: m.max_model_len !== undefined ? 'vllm max_model_len' : 'unknown',
    warnings: contextWarning(m.id, m.max_model_len, 'raise --max-model-len'),
    file: m.root,
  }));
  const metricsOn = metricsRes?.status === 200;
  const samples = metricsOn ? parsePrometheus(metricsRes.text) : [];
  return {
    state: 'up',
    hostState: 'up',
    reason: served.length === 0 ? 'up, but serves no model' : `up, serving ${served.map((m) => m.id).join(', ')}`,
    models: served,
    slots: undefined,
    metrics: {
      enabled: metricsOn,
      requestsRunning: metricValue(samples, 'vllm:num_requests_running'),
      requestsWaiting: metricValue(samples, 'vllm:num_requests_waiting'),
      kvCacheUsage: metricValue(samples, 'vllm:kv_cache_usage_perc'),
    },
    server: {},
    warnings: metricsOn ? [] : ['GET /metrics failed: load and cache statistics are unavailable'],
  };
};
