/**
 * What doctor and init say of each router-mode llama-server (docs/backends.md §3.1): how many models it keeps
 * loaded, each model's state, window and where that came from, and a warning when `--models-max` is below what the
 * menu expects at once (registry/router-fit.ts). Read from the listing list_models returns, which loads nothing.
 */
import type { Config } from '../config/schema.js';
import { printable } from '../printable.js';
import { describeRouterFit, routerModelLines } from '../registry/format-model-list.js';
import type { ModelListing } from '../registry/model-list.js';
import { routerFits } from '../registry/router-fit.js';
import type { Stage } from '../selftest/self-test.js';

export function routerChecks(config: Config, listing: ModelListing): Stage[] {
  const fits = routerFits(config, listing);
  return listing.endpoints
    .filter((e) => e.state === 'up' && e.server.router === true)
    .map((e) => {
      const fit = fits.find((f) => f.endpoint === e.endpoint);
      const warning = fit === undefined ? undefined : describeRouterFit(fit);
      const max = e.server.maxInstances;
      const limit = max === undefined ? 'its model limit unknown (max_instances not reported)' : max <= 0 ? 'it keeps any number of models loaded (max_instances 0)' : `it keeps up to ${max} model${max === 1 ? '' : 's'} loaded at once (max_instances ${max}, --models-max)`;
      const lines = e.models.flatMap((m) => routerModelLines(e, m)).map((l) => `   ${l}`);
      return {
        name: `router ${e.endpoint}`,
        ok: true,
        warn: warning !== undefined,
        detail: [`a llama-server in router mode: ${limit}; ${e.models.length} models, read without loading any:`, ...lines].join('\n'),
        fixes: warning === undefined ? [] : [printable(warning)],
      };
    });
}
