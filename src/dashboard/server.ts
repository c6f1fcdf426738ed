/**
 * `localagents dashboard`: a live web page over the same services as the MCP
 * tools. Listens on 127.0.0.1 only; every page and data endpoint needs the
 * random token from the printed URL (static code files do not: they hold no
 * data). Keeps no state of its own beyond a short probe cache.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '../app.js';
import type { Logger } from '../log.js';
import { replyWithError } from './error-reply.js';
import { firstPaint, pageWithFirstPaint } from './first-paint.js';
import { sendBody, sendJson, sendText } from './http-reply.js';
import { jobListRow, type JobListRow } from '../jobs/view/job-facts.js';
import { listenOnLoopback } from './listen.js';
import { createLiveFeed } from './live-feed.js';
import { createAssetStore } from './static-assets.js';
import { throttleListing } from './throttled-listing.js';
import { usageView } from './usage-view.js';
import { createFrontDoor } from '../net/front-door.js';
import { answerUnparsable, isRefusal, parseRequestTarget, presentedToken } from '../net/request-url.js';
import { newToken } from '../net/token.js';
import { checkJobId } from '../jobs/record/job-id.js';

export interface DashboardOptions {
  /** 0 or absent: any free port. */
  readonly port?: number;
  readonly log: Logger;
}

export interface DashboardHandle {
  /** `http://127.0.0.1:PORT/?token=…`: the only way in. */
  readonly url: string;
  readonly token: string;
  /** Where the server listens (always 127.0.0.1). */
  readonly address: AddressInfo;
  close(): Promise<void>;
}

/** What a person is told exists when a path does not. */
const ROUTES = '/, /api/jobs, /api/jobs/<job id>, /api/jobs/<job id>/requests, /api/endpoints and /api/events';

export async function startDashboard(app: App, opts: DashboardOptions): Promise<DashboardHandle> {
  const token = newToken();
  const assets = createAssetStore();
  const listing = throttleListing(() => app.listModels());
  const rows = async (): Promise<JobListRow[]> => (await app.jobs.list(true)).records.map(jobListRow);
  const feed = createLiveFeed({ rows, endpoints: () => listing.get(), log: opts.log });
  let port = 0;

  // What to do, after what was wrong: every refusal a person reads ends with this.
  const retry = 'Open the exact URL that `localagents dashboard` printed.';
  const door = createFrontDoor({ bindHost: '127.0.0.1' }, () => port, token, () => retry);
  const refuse = (res: ServerResponse, target: string | undefined, status: number, error: string, message: string): void => {
    // The page's fetches read JSON; a person's browser tab reads text.
    if (target?.startsWith('/api/')) sendJson(res, status, { error, message });
    else sendText(res, status, `${message}\n`);
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refused = door.checkAddress(req);
    if (refused) return sendText(res, refused.status, `${refused.message}\n`);
    const target = parseRequestTarget(req.url);
    if (isRefusal(target)) return refuse(res, req.url, target.status, 'bad_request', `${target.message}. ${retry}`);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return refuse(res, target.path, 405, 'method_not_allowed', `method not allowed: the dashboard answers GET and HEAD only, not ${String(req.method)}. ${retry}`);
    }
    const [first, second, third, fourth, ...rest] = target.segments;
    if (first === 'static') {
      const asset = second !== undefined && third === undefined ? await assets.get(second) : undefined;
      return asset ? sendBody(res, asset.type, asset.body, req.method === 'HEAD') : sendText(res, 404, `not found: no static file ${target.path}\n`);
    }
    if (target.path === '/favicon.ico') return void res.writeHead(204).end();
    const token = presentedToken(req, target, true);
    if (isRefusal(token)) return refuse(res, target.path, token.status, 'bad_request', `${token.message}. ${retry}`);
    // 403, not 401: the token is part of the page's URL, not an HTTP authentication scheme.
    const noToken = door.checkToken(token);
    if (noToken) return refuse(res, target.path, 403, 'forbidden', noToken.message);
    if (target.path === '/') {
      const page = await assets.get('index.html');
      if (!page) return sendText(res, 500, 'page missing\n');
      return sendBody(res, page.type, pageWithFirstPaint(page.body, await firstPaint(rows, () => app.loadConfig(), opts.log)), req.method === 'HEAD');
    }
    if (target.path === '/api/events') return feed.attach(res);
    if (target.path === '/api/jobs') return sendJson(res, 200, { jobs: await rows() });
    if (target.path === '/api/endpoints') return sendJson(res, 200, await listing.get());
    if (target.path === '/api/usage') return sendJson(res, 200, await usageView(app));
    if (first === 'api' && second === 'jobs' && third !== undefined && (fourth === undefined || fourth === 'requests') && rest.length === 0) {
      const id = checkJobId(third, 'the job id in the URL');
      return sendJson(res, 200, fourth === undefined ? await app.jobDetail(id) : await app.requestSeries(id));
    }
    return refuse(res, target.path, 404, 'not_found', `not found: nothing at ${target.path}; the dashboard serves ${ROUTES}. ${retry}`);
  };

  const server = createServer((req, res) => {
    route(req, res).catch((err: unknown) => replyWithError(req, res, err, retry, opts.log));
  });
  server.on('clientError', answerUnparsable);
  const address = await listenOnLoopback(server, opts.port);
  port = address.port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    token,
    address,
    close() {
      closing ??= new Promise<void>((resolve) => {
        feed.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
