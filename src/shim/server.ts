/**
 * The shim's HTTP server: one per localagents process, on 127.0.0.1 and an
 * ephemeral port, started on first use. Routes /job/<token>/v1/messages (and
 * its count_tokens) to the job's endpoint; an unknown or finished token, or any
 * other path, gets an Anthropic 404 and reaches no backend.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log.js';
import { createProber } from '../backends/probe.js';
import { learnSecret } from '../secrets/redact.js';
import { forwardRequest } from './forward.js';
import type { RouteState } from './exchange.js';
import { routeOutage } from './route-outage.js';
import { createPdfTextCache } from './body/pdf-text.js';
import type { OpenRoute, RouteSpec, Shim } from './routes.js';
import { createUpstreamPools } from './upstream/upstream.js';
import { createPromptWatch } from './progress/prompt-watch.js';

const JOB_PREFIX = '/job/';

/** Our requests to one endpoint: those open now (they occupy slots), and how many were ever opened. */
export interface RequestCount {
  readonly open: number;
  readonly opened: number;
}

export interface ShimServer extends Shim {
  requests(endpoint: string): RequestCount;
  /** The port, once started. */
  port(): number | undefined;
}

/**
 * What a job token opens: the Messages API and token counting, as Claude Code
 * calls them (`?beta=true` and all). Nothing else of the backend (its /slots,
 * /props, admin routes) is reachable with the endpoint's key through the shim.
 */
const FORWARDED = new Set(['POST /v1/messages', 'POST /v1/messages/count_tokens']);

function isForwarded(method: string | undefined, pathAndQuery: string): boolean {
  return FORWARDED.has(`${method ?? ''} ${pathAndQuery.split('?', 1)[0] ?? ''}`);
}

function notFound(res: ServerResponse, message = 'unknown or finished localagents job: this URL is valid only while its job runs'): void {
  const body = JSON.stringify({ type: 'error', error: { type: 'not_found_error', message } });
  res.writeHead(404, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-should-retry': 'false' });
  res.end(body);
}

export function createShimServer(log: Logger): ShimServer {
  const routes = new Map<string, RouteState>();
  /** Open requests per route: they count at the endpoint the route uses now, so a moved job's held requests move with it. */
  const openRequests = new Map<RouteState, number>();
  /** Requests ever opened per endpoint: with the open count as a probe began, every request of ours it may have seen. */
  const openedAt = new Map<string, number>();
  const pools = createUpstreamPools();
  // Probes an endpoint while a job waits for it; its own keep-alive agent, apart from the forwarding pools.
  const prober = createProber();
  const shared = { pools, promptWatch: createPromptWatch(pools), pdfTexts: createPdfTextCache() };
  let server: Server | undefined;
  let listening: Promise<number> | undefined;

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/';
    if (!url.startsWith(JOB_PREFIX)) return notFound(res);
    const slash = url.indexOf('/', JOB_PREFIX.length);
    const token = slash === -1 ? url.slice(JOB_PREFIX.length) : url.slice(JOB_PREFIX.length, slash);
    const route = routes.get(token);
    if (route === undefined) {
      req.resume();
      return notFound(res);
    }
    const pathAndQuery = slash === -1 ? '/' : url.slice(slash);
    if (!isForwarded(req.method, pathAndQuery)) {
      req.resume();
      return notFound(res, `localagents forwards only POST /v1/messages and POST /v1/messages/count_tokens to the model server, not ${req.method ?? 'GET'} ${pathAndQuery.split('?', 1)[0] ?? ''}`);
    }
    openRequests.set(route, (openRequests.get(route) ?? 0) + 1);
    openedAt.set(route.spec.endpoint.name, (openedAt.get(route.spec.endpoint.name) ?? 0) + 1);
    forwardRequest(req, res, pathAndQuery, route, shared, log)
      .catch((err: unknown) => {
        log.error('shim: %s', err instanceof Error ? err.stack : String(err));
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'localagents shim internal error' } }));
        } else res.destroy();
      })
      .finally(() => {
        const left = (openRequests.get(route) ?? 1) - 1;
        if (left > 0) openRequests.set(route, left);
        else openRequests.delete(route);
      });
  };

  const start = (): Promise<number> => {
    listening ??= new Promise<number>((resolve, reject) => {
      const s = createServer({ keepAliveTimeout: 60_000, requestTimeout: 0 }, handle);
      s.on('error', reject);
      // Loopback only: the shim carries a user's prompts and files.
      s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port));
      server = s;
    });
    return listening;
  };

  return {
    async open(spec: RouteSpec): Promise<OpenRoute> {
      // An endpoint built in memory (self-test, library use) never went through config loading.
      learnSecret(spec.endpoint.apiKey);
      const port = await start();
      // 192 bits from the CSPRNG: the token is the only thing standing between a local process and the backend.
      const token = randomBytes(24).toString('base64url');
      const route: RouteState = { spec, endpointUrl: new URL(spec.endpoint.base_url), lastPrompt: undefined, messagesOpened: 0, outage: routeOutage(spec, () => route, prober) };
      const { outage } = route;
      routes.set(token, route);
      return {
        baseUrl: `http://127.0.0.1:${port}${JOB_PREFIX}${token}`,
        close: () => {
          outage?.close();
          routes.delete(token);
        },
      };
    },
    requests: (endpoint) => {
      let open = 0;
      for (const [route, count] of openRequests) if (route.spec.endpoint.name === endpoint) open += count;
      return { open, opened: openedAt.get(endpoint) ?? 0 };
    },
    port: () => {
      const address = server?.address();
      return address && typeof address === 'object' ? address.port : undefined;
    },
    async close() {
      for (const route of routes.values()) route.outage?.close();
      routes.clear();
      const s = server;
      server = undefined;
      listening = undefined;
      if (s) {
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
      await Promise.all([pools.close(), prober.close()]);
    },
  };
}
