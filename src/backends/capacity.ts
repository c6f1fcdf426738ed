/**
 * How many jobs an endpoint takes at once: the user's `max_jobs`, else the
 * slots its server reports, else a per-backend default.
 */
import type { Endpoint } from '../config/schema.js';
import type { EndpointProbe } from './types.js';

/** vLLM batches requests itself; without a slot count we admit this many jobs at once. */
export const DEFAULT_VLLM_MAX_JOBS = 4;

export function capacityOf(endpoint: Endpoint, probe: EndpointProbe): number {
  if (endpoint.max_jobs !== undefined) return endpoint.max_jobs;
  if (probe.slots !== undefined) return probe.slots.total;
  return endpoint.backend === 'vllm' ? DEFAULT_VLLM_MAX_JOBS : 1;
}
