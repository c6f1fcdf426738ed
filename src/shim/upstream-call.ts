/**
 * Sending a request to its backend, and what the shim does when there is no
 * answer: hold it while the job's server is down, loading or swapped
 * (outage-hold.ts), answer at once when the job does not wait, and send it
 * once more on a fresh connection when it met a kept-alive socket the server
 * had just closed (stale-socket.ts).
 */
import type { Dispatcher } from 'undici';
import { discard } from '../backends/answer-body.js';
import { classifyConnectFailure } from '../backends/connect-failure.js';
import type { Exchange } from './exchange.js';
import { readBodyView, writeBody } from './json/json-body.js';
import { rewriteModelId } from './rewrite/model-id.js';
import type { RouteSpec } from './routes.js';
import { failedOnStaleSocket } from './upstream/stale-socket.js';
import { outageDeadlineError, unreachableBackendError } from './translate/backend-error.js';
import { requestHeadersForBackend } from './upstream/upstream.js';

function describeFailure(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && !err.message.includes(code) ? `${err.message}, ${code}` : err.message;
}

/**
 * One send: on the pool, and once more on a connection of its own when the pooled socket turned
 * out stale. Throws what the last attempt threw.
 */
async function send(x: Exchange, body: Buffer, fresh: { used: boolean }): Promise<Dispatcher.ResponseData> {
  const { origin } = x.route.endpointUrl;
  const options: Dispatcher.RequestOptions = {
    method: x.method,
    path: x.pathAndQuery,
    headers: requestHeadersForBackend(x.req.headers, x.route.spec.endpoint.apiKey, body.length),
    body,
    signal: x.clientGone,
  };
  try {
    return await x.shared.pools.pool(origin).request(options);
  } catch (err) {
    if (fresh.used || x.clientGone.aborted || !failedOnStaleSocket(err)) throw err;
    fresh.used = true;
    x.log.note(`resent on a fresh connection: ${x.route.spec.endpoint.name} closed the kept-alive one before answering (${describeFailure(err)})`);
    return await x.shared.pools.requestFresh(origin, options);
  }
}

/**
 * Failover moved the job while this request was held (defaults.failover): it goes to the new endpoint,
 * asking for the id that endpoint serves.
 */
function movedBody(x: Exchange, body: Buffer, from: RouteSpec): Buffer {
  const to = x.route.spec;
  x.log.note(`held ${Math.round(performance.now() - x.log.started)} ms, then moved from ${from.endpoint.name} to ${to.endpoint.name} (defaults.failover)`);
  const view = x.isMessages || x.isCount ? readBodyView(body) : undefined;
  if (view === undefined || to.servedModel === from.servedModel) return body;
  return writeBody(view, rewriteModelId(view.fields, to.servedModel).body as Readonly<Record<string, unknown>>); // an object stays an object
}

/** The backend's answer (status and headers; the body unread), or undefined when the shim has answered and logged already. */
export async function callUpstream(x: Exchange, body: Buffer): Promise<Dispatcher.ResponseData | undefined> {
  const { outage } = x.route;
  let { spec } = x.route;
  const fresh = { used: false };
  let held: string | undefined; // why the last attempt found no server, while the job's outage wait lasts
  for (;;) {
    if (outage !== undefined && (outage.active || held !== undefined)) {
      const outcome = await outage.wait(held, x.clientGone);
      if (outcome.kind === 'gone') {
        x.settle();
        x.log.write({ status: 0, note: 'client closed the connection while the job waited for its model server' });
        return undefined;
      }
      if (outcome.kind === 'expired') {
        x.fail(outageDeadlineError(outcome.message), { note: 'held for the model server until defaults.outage_wait_s passed', errorSource: 'outage' });
        return undefined;
      }
      if (x.route.spec === spec) x.log.note(`held ${Math.round(performance.now() - x.log.started)} ms until ${spec.endpoint.name} served the job's model again`);
      else {
        body = movedBody(x, body, spec);
        spec = x.route.spec;
      }
    } else if (outage !== undefined && x.isMessages) {
      const seen = await outage.recheck();
      if (seen !== undefined && !seen.serving) {
        held = seen.saw;
        continue;
      }
    }
    let upstream: Dispatcher.ResponseData;
    try {
      upstream = await send(x, body, fresh);
    } catch (err) {
      if (x.clientGone.aborted) {
        x.settle();
        x.log.write({ status: 0, note: 'client closed the connection before the backend answered' });
        return undefined;
      }
      const failure = classifyConnectFailure(err, x.route.endpointUrl.host, 10);
      if (outage !== undefined) {
        held = `is down (${failure.reason})`;
        continue;
      }
      x.fail(unreachableBackendError({ endpoint: spec.endpoint.name, reason: failure.reason }), { errorSource: 'connect' });
      return undefined;
    }
    // llama.cpp answers 503 while it loads; held only when a probe agrees, so a 503 for another reason is answered as before.
    if (upstream.statusCode === 503 && outage !== undefined) {
      const seen = await outage.look();
      if (!seen.serving) {
        discard(upstream.body);
        held = seen.saw;
        continue;
      }
    }
    return upstream;
  }
}
