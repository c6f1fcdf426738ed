/**
 * What the dashboard shows of one endpoint: its state and why, what it serves,
 * slots and queue. A plain projection of list_models' listing; no probing here.
 */
import type { ServedModel } from '../backends/types.js';
import { describeQueueEntry, describeRouterRoom, describeSlotUse } from '../registry/format-model-list.js';
import type { EndpointListing, MenuListing, ModelListing } from '../registry/model-list.js';

/** One model of a router-mode server, as list_models has it. */
export interface RouterModelView {
  /** Where the window came from: the loaded instance, or the router's arguments for the model. */
  readonly contextSource: string;
  /** Its instance's slots when loaded; the slots its arguments give otherwise (`planned`). */
  readonly slots: { readonly busy: number; readonly total: number; readonly planned: boolean } | undefined;
  /** The exit code of its last load, when that failed. */
  readonly failedExitCode: number | undefined;
  /** What a new job on it costs or waits for, in list_models' words ("… evicting the least recently used idle model of a"). */
  readonly newJob: string | undefined;
}

export interface ModelView {
  readonly id: string;
  readonly context: number | undefined;
  readonly status: string | undefined;
  readonly router: RouterModelView | undefined;
}

export interface EndpointView {
  readonly name: string;
  readonly backend: string;
  readonly host: string | undefined;
  readonly baseUrl: string;
  readonly state: string;
  readonly reason: string;
  readonly models: readonly ModelView[];
  /** A router-mode server: models it keeps loaded at once (--models-max; 0 = no limit). */
  readonly maxInstances: number | undefined;
  /** Busy and total slots, from /slots, /props or /metrics; undefined when the server does not say. */
  readonly slots: { readonly busy: number; readonly total: number; readonly source: string } | undefined;
  /** How many jobs localagents places here at once. */
  readonly capacity: number;
  /** Job places by who holds them, as list_models words it ("capacity 4 jobs: 1 this process, …"); undefined while down. */
  readonly slotUse: string | undefined;
  /** Jobs of every localagents process waiting for this endpoint, in FIFO order, as list_models words them. */
  readonly queue: readonly string[];
  /** Those jobs plus requests the server's own scheduler holds back. */
  readonly queued: number;
  readonly running: number | undefined;
  readonly kvCacheUsage: number | undefined;
  readonly warnings: readonly string[];
}

export interface EndpointsView {
  /** When the listing was taken (ISO). */
  readonly at: string;
  readonly endpoints: readonly EndpointView[];
  /** The model menu with where each entry is live now. */
  readonly menu: readonly MenuListing[];
  readonly defaultModel: string | undefined;
  /** Config problems, or why there is no listing at all. */
  readonly warnings: readonly string[];
  readonly error: string | undefined;
}

function routerModelView(e: EndpointListing, m: ServedModel): RouterModelView | undefined {
  if (m.router === undefined) return undefined;
  const slots = m.router.slots;
  const room = e.model_rooms?.[m.id];
  return {
    contextSource: m.contextSource,
    slots: slots && { busy: slots.busy, total: slots.total, planned: slots.source === 'router arguments' },
    failedExitCode: m.router.failedExitCode,
    newJob: room && describeRouterRoom(m.id, room),
  };
}

function endpointView(e: EndpointListing): EndpointView {
  return {
    name: e.endpoint,
    backend: e.backend,
    host: e.host,
    baseUrl: e.baseUrl,
    state: e.state,
    reason: e.reason,
    models: e.models.map((m) => ({ id: m.id, context: m.context, status: m.routerStatus, router: routerModelView(e, m) })),
    maxInstances: e.server.maxInstances,
    slots: e.slots ? { busy: e.slots.busy, total: e.slots.total, source: e.slots.source } : undefined,
    capacity: e.capacity,
    slotUse: e.slot_use && describeSlotUse(e.slot_use),
    queue: e.queue.map(describeQueueEntry),
    queued: e.queue.length + (e.metrics.requestsWaiting ?? 0),
    running: e.metrics.requestsRunning,
    kvCacheUsage: e.metrics.kvCacheUsage,
    warnings: e.warnings,
  };
}

export function endpointsView(listing: ModelListing, at: Date): EndpointsView {
  return {
    at: at.toISOString(),
    endpoints: listing.endpoints.map(endpointView),
    menu: listing.menu,
    defaultModel: listing.default_model,
    warnings: listing.warnings,
    error: undefined,
  };
}

export function endpointsFailure(message: string, at: Date): EndpointsView {
  return { at: at.toISOString(), endpoints: [], menu: [], defaultModel: undefined, warnings: [], error: message };
}
