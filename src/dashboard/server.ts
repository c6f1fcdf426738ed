/**
 * `localagents dashboard`: a live web page over the same services as the MCP
 * tools. Listens on 127.0.0.1 only; every page and data endpoint needs the
 * random token from the printed URL (static code files do not: they hold no
 * data). Keeps no state of its own beyond a short probe cache.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '../app.js';
import { BadArgumentError, errorMessage, isLocalAgentsError } from '../errors.js';
import type { Logger } from '../log.js';
import { firstPaint, pageWithFirstPaint } from './first-paint.js';
import { sendBody, sendJson, sendText } from './http-reply.js';
import { jobDetail } from './job-detail.js';
import { jobRow } from './job-row.js';
import { createLiveFeed } from './live-feed.js';
import { readRequestSeries, withOpenRequests } from './request-series.js';
import { createAssetStore } from './static-assets.js';
import { throttleListing } from './throttled-listing.js';
import { usageView } from './usage-view.js';
import { createFrontDoor } from '../net/front-door.js';
import { newToken } from '../net/token.js';

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

const JOB_PATH = /^\/api\/jobs\/([^/]+)(\/requests)?$/;

export async function startDashboard(app: App, opts: DashboardOptions): Promise<DashboardHandle> {
  const token = newToken();
  const assets = createAssetStore();
  const listing = throttleListing(() => app.listModels());
  const rows = async (): Promise<ReturnType<typeof jobRow>[]> => (await app.jobs.list(true)).records.map(jobRow);
  const feed = createLiveFeed({ rows, endpoints: () => listing.get(), log: opts.log });
  let port = 0;

  const door = createFrontDoor({ bindHost: '127.0.0.1' }, () => port, token, () => 'Open the exact URL that `localagents dashboard` printed.');

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const refused = door.checkAddress(req);
    if (refused) return sendText(res, refused.status, `${refused.message}\n`);
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, 'method not allowed\n');
    if (url.pathname.startsWith('/static/')) {
      const asset = await assets.get(url.pathname.slice('/static/'.length));
      return asset ? sendBody(res, asset.type, asset.body, req.method === 'HEAD') : sendText(res, 404, 'not found\n');
    }
    if (url.pathname === '/favicon.ico') return void res.writeHead(204).end();
    // 403, not 401: the token is part of the page's URL, not an HTTP authentication scheme.
    const noToken = door.checkToken(url.searchParams.get('token'));
    if (noToken) return sendText(res, 403, `${noToken.message}\n`);
    if (url.pathname === '/') {
      const page = await assets.get('index.html');
      if (!page) return sendText(res, 500, 'page missing\n');
      return sendBody(res, page.type, pageWithFirstPaint(page.body, await firstPaint(rows, () => app.loadConfig(), opts.log)), req.method === 'HEAD');
    }
    if (url.pathname === '/api/events') return feed.attach(res);
    if (url.pathname === '/api/jobs') return sendJson(res, 200, { jobs: await rows() });
    if (url.pathname === '/api/endpoints') return sendJson(res, 200, await listing.get());
    if (url.pathname === '/api/usage') return sendJson(res, 200, await usageView(app));
    const job = JOB_PATH.exec(url.pathname);
    if (job?.[1] !== undefined) {
      const id = decodeURIComponent(job[1]);
      if (job[2] === undefined) return sendJson(res, 200, await jobDetail(app.jobs, id));
      const record = await app.jobs.get(id);
      const series = await readRequestSeries(app.store.paths(id).requests);
      return sendJson(res, 200, { ...series, points: withOpenRequests(series.points, record.in_flight ?? []), context: record.model.context ?? null });
    }
    return sendText(res, 404, 'not found\n');
  };

  const server = createServer((req, res) => {
    route(req, res).catch((err: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (isLocalAgentsError(err) && (err.code === 'unknown_job' || err.code === 'bad_argument')) {
        sendJson(res, err.code === 'unknown_job' ? 404 : 400, { error: err.code, message: err.message });
        return;
      }
      opts.log.warn('dashboard: %s %s failed: %s', req.method, req.url?.split('?')[0], errorMessage(err));
      sendJson(res, 500, { error: 'internal', message: errorMessage(err) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    const fail = (err: NodeJS.ErrnoException): void => {
      reject(
        err.code === 'EADDRINUSE'
          ? new BadArgumentError('port', `port ${opts.port} on 127.0.0.1 is already in use`, { hint: 'Pick another --port, or leave it out for any free port.', cause: err })
          : err,
      );
    };
    server.once('error', fail);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', fail);
      resolve();
    });
  });
  // listen(…, '127.0.0.1') always yields an AddressInfo, never a pipe name.
  const address = server.address() as AddressInfo;
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
