/**
 * A route's outage wait (outage-hold.ts) wired to what the route is now: each look probes the endpoint
 * the route uses at that moment, and a failover move (defaults.failover) switches the route's upstream.
 */
import type { Prober } from '../backends/probe.js';
import { learnSecret } from '../secrets/redact.js';
import type { RouteState } from './exchange.js';
import { createRouteOutage, lookFromProbe, type OutageFailover, type RouteOutage } from './outage-hold.js';
import type { RouteSpec, RouteUpstream } from './routes.js';

/**
 * A route moved by failover: its next requests, and the held ones, go to `to`. The token, the request
 * numbering and the outage wait stay; the last prompt size is another server's, so it is forgotten.
 */
function moveRoute(route: RouteState, to: RouteUpstream): void {
  learnSecret(to.endpoint.apiKey);
  route.spec = { ...route.spec, ...to };
  route.endpointUrl = new URL(to.endpoint.base_url);
  route.lastPrompt = undefined;
}

/** `now`: the route as it is at each probe (failover may have moved it); undefined when the job does not wait. */
export function routeOutage(spec: RouteSpec, now: () => RouteState, prober: Prober): RouteOutage | undefined {
  if (spec.outageWaitS === undefined || spec.outageWaitS <= 0) return undefined;
  const look = async () => {
    const current = now().spec;
    const sameModel = current.sameModel ?? ((id: string) => id === current.servedModel);
    const job = { id: current.servedModel, ...current.servedWeights };
    return lookFromProbe(await prober.probeEndpoint(current.endpoint, current.probeTimeoutS ?? 2.5), job, sameModel);
  };
  const { failover } = spec;
  const moves: OutageFailover | undefined = failover && {
    afterS: failover.afterS,
    async tryMove(since, saw) {
      const choice = await failover.move({ from: now().spec.endpoint.name, since, saw });
      if (choice.kind === 'stay') return choice;
      moveRoute(now(), choice.upstream);
      return { kind: 'moved', to: choice.upstream.endpoint.name, servedId: choice.upstream.servedModel };
    },
  };
  return createRouteOutage(spec.endpoint.name, spec.outageWaitS, look, spec.onOutage ?? { onLive: () => undefined, onEnd: () => undefined }, moves);
}
