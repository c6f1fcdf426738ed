/**
 * How an endpoint's slots are shared right now, and who waits for them: what
 * placement decides by and what list_models shows. Pure: the job manager
 * supplies the counts (leases from the slot board, in-flight requests from the shim).
 */
import { capacityOf } from '../backends/capacity.js';
import type { EndpointProbe } from '../backends/types.js';
import type { Endpoint } from '../config/schema.js';

export interface EndpointLoad {
  /** Slot leases of jobs of this process there now. */
  readonly thisProcess: number;
  /** Slot leases of other localagents processes sharing the state directory. */
  readonly otherProcesses: number;
  /** Requests of ours in flight there as the probe ran (they show up as busy slots). */
  readonly ourInFlight: number;
  /** The served models jobs of every process hold there, each with its jobs (what a router must keep loaded). */
  readonly modelsHeld?: ReadonlyMap<string, readonly string[]> | undefined;
}

/** How an endpoint's slots are used: what list_models shows and placement decides by. */
export interface SlotUse {
  readonly capacity: number;
  readonly this_process: number;
  readonly other_processes: number;
  /** Busy slots no localagents lease accounts for: other programs using the server. */
  readonly other_clients: number;
  readonly free: number;
}

/**
 * Busy slots the probe saw, less our own requests in flight and less the other
 * processes' leases (each lease is at most one busy slot; so a lease is never
 * counted twice, once as a lease and once as a busy slot), are other clients'.
 */
export function slotUse(endpoint: Endpoint, probe: EndpointProbe, load: EndpointLoad): SlotUse {
  const capacity = capacityOf(endpoint, probe);
  const otherClients = Math.max(0, (probe.slots?.busy ?? 0) - load.ourInFlight - load.otherProcesses);
  return {
    capacity,
    this_process: load.thisProcess,
    other_processes: load.otherProcesses,
    other_clients: otherClients,
    free: Math.max(0, capacity - load.thisProcess - load.otherProcesses - otherClients),
  };
}

/** A job waiting for a slot, in any localagents process sharing the state directory. */
export interface QueueEntry {
  /** Place in its model's FIFO across processes. */
  readonly position: number;
  readonly job_id: string;
  /** The FIFO: the requested model, with `@endpoint` when the job is pinned to one. */
  readonly model: string;
  readonly owner_pid: number;
  readonly this_process: boolean;
}

export interface EndpointJobs {
  readonly load: EndpointLoad;
  readonly queue: readonly QueueEntry[];
}
