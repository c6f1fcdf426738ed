/**
 * Probe of any other Anthropic-compatible server: only the OpenAI-style model list.
 */
import { z } from 'zod';
import { errorMessageOf, parseJson } from './http-get.js';
import { findings, type BackendProber } from './probe-context.js';

const modelsBody = z.object({ data: z.array(z.looseObject({ id: z.string() })) });

export const probeOther: BackendProber = async (ctx) => {
  const res = await ctx.get('/v1/models');
  const json = parseJson(res.text);
  if (res.status === 401 || res.status === 403) return findings.needsKey(ctx.endpoint, "the server's key");
  if (res.status === 503) return findings.loading('the server', errorMessageOf(json));
  const models = modelsBody.safeParse(json);
  if (res.status !== 200 || !models.success) {
    return findings.failed(`GET /v1/models answered HTTP ${res.status} without a model list (${res.text.slice(0, 120)})`);
  }
  const served = models.data.data.map((m) => ({
    id: m.id,
    aliases: [],
    context: undefined,
    contextSource: 'unknown' as const,
    warnings: [],
  }));
  return {
    state: 'up',
    hostState: 'up',
    reason: `up, serving ${served.map((m) => m.id).join(', ') || 'no model'}`,
    models: served,
    slots: undefined,
    metrics: { enabled: false },
    server: {},
    warnings: [],
  };
};
