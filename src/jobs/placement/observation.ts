/**
 * What one look at the endpoints sees: the config, fresh probes, and how many
 * of our own requests were in flight while the probes ran (the busy slots a
 * probe reports include ours; only other clients' reduce our capacity). With
 * the slot board's view, that is each endpoint's load, for placement and for
 * list_models.
 */
import type { Prober } from '../../backends/probe.js';
import type { EndpointProbe } from '../../backends/types.js';
import type { Config } from '../../config/schema.js';
import type { BoardView } from '../../coord/slot-board.js';
import type { ShimServer } from '../../shim/server.js';
import type { EndpointJobs, EndpointLoad } from '../../registry/slot-use.js';

export interface Observation {
  readonly config: Config;
  readonly probes: EndpointProbe[];
  readonly ourInFlight: ReadonlyMap<string, number>;
  /** `performance.now()` when the probes had answered. */
  readonly at: number;
}

/** What list_models needs: fresh probes, and per endpoint the slot leases by process and the queue. */
export interface JobsSnapshot {
  readonly probes: EndpointProbe[];
  jobsOf(endpoint: string): EndpointJobs;
}

/**
 * Probes every endpoint. Ours are the requests open as the probe began plus
 * those opened while it ran: one of ours that ended meanwhile, even one that
 * began and ended inside a slow probe, is never mistaken for someone else's.
 */
export async function observe(config: Config, prober: Prober, shim: Pick<ShimServer, 'requests'>): Promise<Observation> {
  const before = new Map(config.endpoints.map((e) => [e.name, shim.requests(e.name)]));
  const probes = await prober.probeAll(config);
  const ourInFlight = new Map(
    [...before].map(([name, was]) => [name, was.open + shim.requests(name).opened - was.opened]),
  );
  return { config, probes, ourInFlight, at: performance.now() };
}

/** An endpoint's load: the board's leases by process, and our requests in flight there as the probe ran. */
export const loadOf = (seen: Observation, view: BoardView) => (endpoint: string): EndpointLoad => ({
  ...view.leasesOn(endpoint),
  ourInFlight: seen.ourInFlight.get(endpoint) ?? 0,
  modelsHeld: view.modelsHeldOn(endpoint),
});

/** The slot use and the cross-process queue of each endpoint, as list_models shows them. Pure. */
export function jobsSnapshot(seen: Observation, view: BoardView): JobsSnapshot {
  return {
    probes: seen.probes,
    jobsOf: (endpoint) => ({
      load: loadOf(seen, view)(endpoint),
      queue: view.queueFor(endpoint).map(({ ticket, position }) => ({
        position,
        job_id: ticket.job,
        model: ticket.model,
        owner_pid: ticket.owner.pid,
        this_process: view.mine(ticket),
      })),
    }),
  };
}
