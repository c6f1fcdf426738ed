/**
 * Where a job runs, and why: the live endpoint with a free slot, preferring the
 * menu entry's endpoint, then one that has the model loaded (a router-mode server
 * loads it on demand, at the cost of a load and maybe an eviction), then the one
 * the same working tree used last (its slot likely still holds Claude Code's
 * ~11k-token static prefix), then the most free capacity, then config order. A
 * router never gets a job whose model would evict one a running job uses
 * (registry/router-room.ts). Pure: the manager supplies the counts (leases from
 * the slot board, in-flight requests from the shim).
 */
import type { Candidate } from '../../registry/resolve.js';
import { routerRoom, type RouterRoom } from '../../registry/router-room.js';
import { slotUse, type EndpointLoad } from '../../registry/slot-use.js';

export interface PlacementInput {
  readonly candidates: readonly Candidate[];
  readonly loadOf: (endpoint: string) => EndpointLoad;
  /** The endpoint of the most recent job in the same working tree, if any. */
  readonly warmEndpoint: string | undefined;
  /** run_agent's endpoint argument, when it pinned the job to one endpoint. */
  readonly pinnedEndpoint?: string | undefined;
  /** Who pinned it, in words (default: the endpoint argument). */
  readonly pinnedBy?: string | undefined;
  /** The menu entry's endpoint: first choice while it has a free place. */
  readonly preferredEndpoint?: string | undefined;
  /** Why the preferred endpoint is not a candidate at all (from resolution). */
  readonly preferredMissing?: string | undefined;
}

export interface Placement {
  readonly candidate: Candidate;
  /** For the job record: which endpoint was used and why. */
  readonly reason: string;
}

/** A candidate's room: free places, and on a router what its model costs there. */
interface Room {
  readonly free: number;
  readonly router: RouterRoom | undefined;
}

/** Free places for the candidate's job: the endpoint's, and on a router also its model's own slots less the jobs holding it. */
function roomOf(c: Candidate, load: EndpointLoad): Room {
  const free = slotUse(c.endpoint, c.probe, load).free;
  if (c.probe.server.router !== true) return { free, router: undefined };
  const router = routerRoom(c.probe, c.model.id, load.modelsHeld ?? new Map(), c.endpoint.share_models === true);
  const modelSlots = c.model.router?.slots?.total;
  const modelFree = modelSlots === undefined ? free : modelSlots - (load.modelsHeld?.get(c.model.id)?.length ?? 0);
  return { free: router.kind === 'blocked' ? 0 : Math.min(free, modelFree), router };
}

export function place(input: PlacementInput): Placement | undefined {
  const scored = input.candidates
    .map((c, order) => ({ c, order, ...roomOf(c, input.loadOf(c.endpoint.name)) }))
    .filter((s) => s.free > 0);
  const rank = (name: string, wanted: string | undefined): number => (name === wanted ? 0 : 1);
  const cost = (r: RouterRoom | undefined): number => (r === undefined || r.kind === 'loaded' ? 0 : r.kind === 'room' ? 1 : 2);
  scored.sort(
    (a, b) =>
      rank(a.c.endpoint.name, input.preferredEndpoint) - rank(b.c.endpoint.name, input.preferredEndpoint) ||
      cost(a.router) - cost(b.router) ||
      rank(a.c.endpoint.name, input.warmEndpoint) - rank(b.c.endpoint.name, input.warmEndpoint) ||
      b.free - a.free ||
      a.order - b.order,
  );
  const chosen = scored[0];
  if (chosen === undefined) return undefined;
  const loads = chosen.router === undefined || chosen.router.kind === 'loaded' ? '' : `; ${loadWords(chosen.c, chosen.router)}`;
  return { candidate: chosen.c, reason: `${placementReason(input, chosen.c.endpoint.name, scored.length)}${loads}` };
}

function loadWords(c: Candidate, r: RouterRoom): string {
  const load = `the router loads ${c.model.id} for it`;
  return r.kind === 'evicts' ? `${load}, evicting the least recently used idle model of ${r.idle.join(', ')}` : load;
}

/**
 * Why a job cannot be placed on a router that serves its model, in words for its record and list_models
 * ("gpu-box holds 1 model at a time and qwen3.8-27b is busy with job …"); undefined when no router holds it back.
 */
export function routerWait(input: PlacementInput): { reason: string; waited: string } | undefined {
  const blocked = input.candidates.flatMap((c) => {
    const room = roomOf(c, input.loadOf(c.endpoint.name)).router;
    return room?.kind === 'blocked' ? [room] : [];
  });
  if (blocked.length === 0) return undefined;
  return { reason: `waits for ${blocked.map((b) => b.reason).join('; ')}`, waited: blocked.map((b) => b.waited).join('; ') };
}

function placementReason(input: PlacementInput, chosen: string, withRoom: number): string {
  if (input.pinnedEndpoint !== undefined) return `pinned by ${input.pinnedBy ?? 'the endpoint argument'} (${chosen})`;
  if (chosen === input.preferredEndpoint) return `the menu entry's preferred endpoint (${chosen})`;
  const preferred =
    input.preferredEndpoint === undefined
      ? ''
      : `${input.preferredMissing ?? `preferred endpoint ${input.preferredEndpoint} has no free slot`}; `;
  if (chosen === input.warmEndpoint) return `${preferred}${chosen} ran the last job in this working tree (its cache likely holds the prompt prefix)`;
  if (input.candidates.length === 1) return `${preferred}${chosen} is the only endpoint serving the model`;
  return `${preferred}${chosen} has the most free capacity of the ${withRoom} endpoint(s) serving the model with room`;
}
