/**
 * Whether a router-mode server has room for a job's model without taking a model away from a running job.
 * A router keeps at most `max_instances` models; one more is loaded by evicting the least recently used idle one,
 * and "idle" to the router means only "no request right now": between a job's turns its model looks idle, so a
 * second job on another model would evict it, and each turn of either job would swap the weights back
 * (docs/backends.md §3.1, the thrash issue 39 measured). Pure: the caller supplies which models the jobs of every
 * localagents process hold there (the slot board's leases).
 */
import type { EndpointProbe, ServedModel } from '../backends/types.js';

/** The router's answer for one model, as placement and list_models read it. */
export type RouterRoom =
  | { readonly kind: 'loaded' }
  /** Not loaded; the router has a free instance for it. */
  | { readonly kind: 'room' }
  /** Not loaded; loading it evicts one of these idle models (the least recently used). */
  | { readonly kind: 'evicts'; readonly idle: readonly string[] }
  /** Not loaded, and every model it could evict is held by a running job: the job must wait. */
  | {
      readonly kind: 'blocked';
      /** "gpu-box: it holds 1 model at a time and qwen3.8-27b is busy with job …" */
      readonly reason: string;
      /** The same, told afterwards: "gpu-box held 1 model at a time and qwen3.8-27b was busy with job …" */
      readonly waited: string;
    };

/** A model loaded or on its way (a running instance, to the router's limit). */
const running = (m: ServedModel): boolean => m.routerStatus !== undefined && !['unloaded', 'downloading', 'downloaded'].includes(m.routerStatus);

/** The router's model limit, when the endpoint is a router that has one. */
export function routerLimit(probe: EndpointProbe): number | undefined {
  const max = probe.server.maxInstances;
  return probe.server.router === true && max !== undefined && max > 0 ? max : undefined;
}

function jobsText(jobs: readonly string[]): string {
  return jobs.length === 1 ? `job ${jobs[0] ?? ''}` : `jobs ${jobs.join(', ')}`;
}

/**
 * Room for `model` on the router `probe`: `held` maps each served model to the jobs holding it there (of every
 * localagents process); a held model that is not loaded yet is about to be, so it counts as running.
 * `share`: the user let jobs on different models evict each other's (models.yaml `share_models`).
 */
export function routerRoom(probe: EndpointProbe, model: string, held: ReadonlyMap<string, readonly string[]>, share = false): RouterRoom {
  const limit = routerLimit(probe);
  const self = probe.models.find((m) => m.id === model);
  if (self !== undefined && running(self)) return { kind: 'loaded' };
  if (limit === undefined) return { kind: 'room' };
  const inUse = new Set([...probe.models.filter(running).map((m) => m.id), ...[...held.keys()].filter((id) => id !== model)]);
  if (inUse.size < limit) return { kind: 'room' };
  const idle = [...inUse].filter((id) => (held.get(id) ?? []).length === 0 && probe.models.some((m) => m.id === id && m.routerStatus === 'loaded'));
  if (idle.length > 0) return { kind: 'evicts', idle };
  if (share) return { kind: 'evicts', idle: [...inUse] };
  const busy = (is: string): string =>
    [...inUse]
      .map((id) => {
        const jobs = held.get(id) ?? [];
        return jobs.length > 0 ? `${id} ${is} busy with ${jobsText(jobs)}` : `${id} ${is} ${probe.models.find((m) => m.id === id)?.routerStatus ?? 'loading'} for another client`;
      })
      .join(', ');
  const models = limit === 1 ? '1 model at a time' : `${limit} models at a time`;
  return {
    kind: 'blocked',
    reason: `${probe.endpoint}: it holds ${models} and ${busy('is')}`,
    waited: `${probe.endpoint} held ${models} and ${busy('was')}`,
  };
}
