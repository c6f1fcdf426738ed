/**
 * Where a job runs: the live endpoint with a free slot, preferring an explicit
 * endpoint, then the one the same working tree used last (its slot likely still
 * holds Claude Code's ~11k-token static prefix), then the most free capacity,
 * then config order. Pure: the manager supplies the counts.
 */
import type { EndpointProbe } from '../backends/types.js';
import type { Endpoint } from '../config/schema.js';
import type { Candidate } from '../registry/resolve.js';

/** vLLM batches requests itself; without a slot count we admit this many jobs at once. */
export const DEFAULT_VLLM_MAX_JOBS = 4;

export function capacityOf(endpoint: Endpoint, probe: EndpointProbe): number {
  if (endpoint.max_jobs !== undefined) return endpoint.max_jobs;
  if (probe.slots !== undefined) return probe.slots.total;
  return endpoint.backend === 'vllm' ? DEFAULT_VLLM_MAX_JOBS : 1;
}

export interface EndpointLoad {
  /** localagents jobs running there now. */
  readonly ourJobs: number;
  /** Requests of ours in flight there now (they show up as busy slots). */
  readonly ourInFlight: number;
}

/** Free places: capacity minus our jobs minus slots other clients keep busy. */
export function freeCapacity(endpoint: Endpoint, probe: EndpointProbe, load: EndpointLoad): number {
  const othersBusy = Math.max(0, (probe.slots?.busy ?? 0) - load.ourInFlight);
  return capacityOf(endpoint, probe) - load.ourJobs - othersBusy;
}

export interface PlacementInput {
  readonly candidates: readonly Candidate[];
  readonly loadOf: (endpoint: string) => EndpointLoad;
  /** The endpoint of the most recent job in the same working tree, if any. */
  readonly warmEndpoint: string | undefined;
}

export function place(input: PlacementInput): Candidate | undefined {
  const scored = input.candidates
    .map((c, order) => ({ c, order, free: freeCapacity(c.endpoint, c.probe, input.loadOf(c.endpoint.name)) }))
    .filter((s) => s.free > 0);
  if (scored.length === 0) return undefined;
  scored.sort((a, b) => {
    const warmA = a.c.endpoint.name === input.warmEndpoint ? 0 : 1;
    const warmB = b.c.endpoint.name === input.warmEndpoint ? 0 : 1;
    return warmA - warmB || b.free - a.free || a.order - b.order;
  });
  return scored[0]?.c;
}
