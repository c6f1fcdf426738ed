/**
 * How many jobs an endpoint takes at once: the user's `max_jobs`, else the
 * slots its server reports, else a per-backend default. A router-mode
 * llama-server has each model's slots (loaded, or planned by its arguments);
 * which models may be loaded together is placement's question (registry/router-room.ts).
 */
import type { Endpoint } from '../config/schema.js';
import type { EndpointProbe } from './types.js';

/** vLLM batches requests itself; without a slot count we admit this many jobs at once. */
export const DEFAULT_VLLM_MAX_JOBS = 4;

export function capacityOf(endpoint: Endpoint, probe: EndpointProbe): number {
  if (endpoint.max_jobs !== undefined) return endpoint.max_jobs;
  if (probe.server.router === true && probe.models.length > 0) return probe.models.reduce((n, m) => n + (m.router?.slots?.total ?? 1), 0);
  if (probe.slots !== undefined) return probe.slots.total;
  return endpoint.backend === 'vllm' ? DEFAULT_VLLM_MAX_JOBS : 1;
}
