/**
 * What list_models and `localagents models` show: every endpoint with its live
 * state, what it serves, slots and load, and the model menu with where each
 * entry is live right now. Pure: built from config, probes and job counts.
 */
import type { EndpointProbe } from '../backends/types.js';
import type { Config, ModelMenuEntry } from '../config/schema.js';
import { routerRoom, type RouterRoom } from './router-room.js';
import { slotUse, type EndpointJobs, type QueueEntry, type SlotUse } from './slot-use.js';
import { matchName } from './match.js';
import type { AgentsListing } from '../agents/agent-listing.js';

export interface EndpointListing extends EndpointProbe {
  readonly capacity: number;
  /** Slots by who uses them: this process, other localagents processes, other clients; and free ones. Undefined while the endpoint is not up. */
  readonly slot_use: SlotUse | undefined;
  /** Jobs of every localagents process waiting for a slot here, with their place in their model's FIFO. */
  readonly queue: readonly QueueEntry[];
  /** A router-mode server: what a new job on each of its models would cost (nothing, a load, an eviction) or wait for. */
  readonly model_rooms?: Readonly<Record<string, RouterRoom>> | undefined;
}

export interface MenuListing {
  readonly name: string;
  readonly notes: string;
  readonly host: string | undefined;
  readonly bring_up: string | undefined;
  readonly tags: readonly string[];
  /** The endpoint jobs for this entry try first (another serving it is used when that one cannot). */
  readonly preferred_endpoint: string | undefined;
  /** `endpoint/served-id` pairs where this entry resolves now. */
  readonly live_on: readonly string[];
}

export interface ModelListing extends Partial<AgentsListing> {
  readonly config: string;
  readonly endpoints: readonly EndpointListing[];
  readonly menu: readonly MenuListing[];
  readonly default_model: string | undefined;
  /** Where a job runs when its request names no folder: the folder this server was started in. */
  readonly server_cwd: string;
  /** The Claude Code settings a job loads (defaults.setting_sources); `user` brings ~/.claude in. */
  readonly setting_sources: readonly string[];
  /** Config problems that did not stop it loading (an unset api_key_env). */
  readonly warnings: readonly string[];
  /** Of each model's recent finished jobs, how many were kept (src/jobs/record/outcome.ts); absent where no job store is read. */
  readonly kept?: KeptListing | undefined;
}

/** The newest jobs of the last `days` days (at most a few hundred: `capped` when there were more), by outcome, per model. */
export interface KeptListing {
  readonly days: number;
  readonly jobs: number;
  readonly capped: boolean;
  readonly models: readonly { readonly model: string; readonly kept: number; readonly lost: number; readonly unknown: number }[];
}

/** What the config alone says of a menu entry (no probing): the dashboard shows it before the first probe. */
export function menuEntryFacts(entry: ModelMenuEntry): Omit<MenuListing, 'live_on'> {
  return { name: entry.name, notes: entry.notes, host: entry.host, bring_up: entry.bring_up, tags: entry.tags ?? [], preferred_endpoint: entry.endpoint };
}

export function buildModelList(
  config: Config,
  probes: readonly EndpointProbe[],
  jobsOf: (endpoint: string) => EndpointJobs,
  serverCwd: string,
): ModelListing {
  const endpoints = probes.map((probe) => {
    const endpoint = config.endpoints.find((e) => e.name === probe.endpoint);
    const jobs = jobsOf(probe.endpoint);
    const use = endpoint && probe.state === 'up' ? slotUse(endpoint, probe, jobs.load) : undefined;
    const rooms =
      probe.server.router === true && probe.state === 'up'
        ? Object.fromEntries(probe.models.map((m) => [m.id, routerRoom(probe, m.id, jobs.load.modelsHeld ?? new Map(), endpoint?.share_models === true)]))
        : undefined;
    return { ...probe, capacity: use?.capacity ?? 0, slot_use: use, queue: jobs.queue, model_rooms: rooms };
  });
  const menu = config.models.map((entry) => {
    const term = entry.served_name ?? entry.name;
    const liveOn = probes
      .filter((p) => p.state === 'up')
      .flatMap((p) => p.models.filter((m) => matchName(term, [m.id, ...m.aliases]) !== undefined).map((m) => `${p.endpoint}/${m.id}`));
    // The preferred endpoint first: that is where a job for this entry goes when it can.
    liveOn.sort((a, b) => Number(!a.startsWith(`${entry.endpoint}/`)) - Number(!b.startsWith(`${entry.endpoint}/`)));
    return { ...menuEntryFacts(entry), live_on: liveOn };
  });
  return {
    config: config.path ?? `(none found; searched ${(config.searched ?? []).join(', ')})`,
    endpoints,
    menu,
    default_model: config.defaults.model,
    server_cwd: serverCwd,
    setting_sources: config.defaults.setting_sources,
    warnings: config.warnings ?? [],
  };
}
