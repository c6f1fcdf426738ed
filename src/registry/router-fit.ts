/**
 * Whether a router-mode server keeps enough models loaded for the user's menu (docs/backends.md §3.1). The menu
 * expects at once as many models as it maps to the endpoint (the distinct served models its entries resolve to
 * there), but never more than jobs the endpoint takes at once (`max_jobs`, else its models' slots): below that,
 * jobs on different models wait for each other (router-room.ts). A router with no menu entry on it expects nothing.
 * Pure: from the config and the listing list_models returns.
 */
import type { Config } from '../config/schema.js';
import { routerLimit } from './router-room.js';
import type { ModelListing } from './model-list.js';

export interface RouterFit {
  readonly endpoint: string;
  /** Models the router keeps loaded at once (max_instances, --models-max). */
  readonly maxInstances: number;
  /** The served models the menu maps to this endpoint. */
  readonly menuModels: readonly string[];
  /** Jobs the endpoint takes at once. */
  readonly capacity: number;
  /** Whether that is the user's `max_jobs` (else the slots the models have). */
  readonly maxJobs: boolean;
  /** Models the menu may want loaded at once: its models there, capped by the capacity. */
  readonly expected: number;
}

/** One fit per router endpoint that is up and has a model limit. */
export function routerFits(config: Config, listing: ModelListing): RouterFit[] {
  return listing.endpoints.flatMap((e) => {
    const limit = e.state === 'up' ? routerLimit(e) : undefined;
    if (limit === undefined) return [];
    const prefix = `${e.endpoint}/`;
    const menuModels = [...new Set(listing.menu.flatMap((m) => m.live_on.filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length))))];
    return [{ endpoint: e.endpoint, maxInstances: limit, menuModels, capacity: e.capacity, maxJobs: config.endpoints.find((c) => c.name === e.endpoint)?.max_jobs !== undefined, expected: Math.min(menuModels.length, e.capacity) }];
  });
}
