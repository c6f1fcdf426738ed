/**
 * Probing every endpoint costs the backends a few requests each, so however
 * many browsers watch, the dashboard probes at most once per interval: callers
 * inside the interval get the last answer, callers during a probe share it.
 */
import { personWords } from '../errors.js';
import type { ModelListing } from '../registry/model-list.js';
import { endpointsFailure, endpointsView, type EndpointsView } from './endpoint-view.js';

export const MIN_PROBE_INTERVAL_MS = 2000;

export interface ThrottledListing {
  get(): Promise<EndpointsView>;
}

export function throttleListing(
  list: () => Promise<ModelListing>,
  minIntervalMs: number = MIN_PROBE_INTERVAL_MS,
  now: () => number = Date.now,
): ThrottledListing {
  let last: { readonly endedAt: number; readonly view: EndpointsView } | undefined;
  let inFlight: Promise<EndpointsView> | undefined;
  return {
    get() {
      if (inFlight) return inFlight;
      if (last && now() - last.endedAt < minIntervalMs) return Promise.resolve(last.view);
      const probe = (async (): Promise<EndpointsView> => {
        try {
          return endpointsView(await list(), new Date(now()));
        } catch (err) {
          // A broken config is shown on the page, and not retried faster than a good one.
          return endpointsFailure(personWords(err).message, new Date(now()));
        }
      })();
      inFlight = probe;
      void probe.then((view) => {
        last = { endedAt: now(), view };
        inFlight = undefined;
      });
      return probe;
    },
  };
}
