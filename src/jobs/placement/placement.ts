/**
 * Where a job runs, and why: the live endpoint with a free slot, preferring the
 * menu entry's endpoint, then the one the same working tree used last (its slot likely still
 * holds Claude Code's ~11k-token static prefix), then the most free capacity,
 * then config order. Pure: the manager supplies the counts (leases from the
 * slot board, in-flight requests from the shim).
 */
import type { Candidate } from '../../registry/resolve.js';
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

export function place(input: PlacementInput): Placement | undefined {
  const scored = input.candidates
    .map((c, order) => ({ c, order, free: slotUse(c.endpoint, c.probe, input.loadOf(c.endpoint.name)).free }))
    .filter((s) => s.free > 0);
  const rank = (name: string, wanted: string | undefined): number => (name === wanted ? 0 : 1);
  scored.sort(
    (a, b) =>
      rank(a.c.endpoint.name, input.preferredEndpoint) - rank(b.c.endpoint.name, input.preferredEndpoint) ||
      rank(a.c.endpoint.name, input.warmEndpoint) - rank(b.c.endpoint.name, input.warmEndpoint) ||
      b.free - a.free ||
      a.order - b.order,
  );
  const chosen = scored[0];
  if (chosen === undefined) return undefined;
  return { candidate: chosen.c, reason: placementReason(input, chosen.c.endpoint.name, scored.length) };
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
