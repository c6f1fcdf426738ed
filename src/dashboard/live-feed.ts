/**
 * Server-sent events for every open dashboard page: the job rows (a full set
 * when a page connects, then only the rows that changed) and the endpoint
 * listing. One read loop serves all pages, and it runs only while a page is
 * connected, so an idle dashboard reads nothing.
 */
import type { ServerResponse } from 'node:http';
import { errorMessage, personWords } from '../errors.js';
import type { Logger } from '../log.js';
import type { EndpointsView } from './endpoint-view.js';
import { openEventStream, sendEvent } from './event-stream.js';
import type { JobListRow } from '../jobs/view/job-facts.js';
import { pollLoop } from './poll-loop.js';
import { fullRowsEvent, rowDelta, type SentRows } from './row-delta.js';

export interface FeedOptions {
  readonly rows: () => Promise<readonly JobListRow[]>;
  /** Already throttled: called every endpointsIntervalMs, probes no more often than it allows. */
  readonly endpoints: () => Promise<EndpointsView>;
  readonly log: Logger;
  readonly jobsIntervalMs?: number;
  readonly endpointsIntervalMs?: number;
  readonly heartbeatMs?: number;
}

export interface LiveFeed {
  /** Takes over the response: SSE headers now, events until the page goes away or the feed closes. */
  attach(res: ServerResponse): void;
  readonly clientCount: number;
  close(): void;
}

interface Client {
  readonly res: ServerResponse;
  /** Has had the full set of rows; from now on it gets changes only. */
  primed: boolean;
}

export function createLiveFeed(options: FeedOptions): LiveFeed {
  const jobsIntervalMs = options.jobsIntervalMs ?? 1000;
  const endpointsIntervalMs = options.endpointsIntervalMs ?? 2000;
  const clients = new Set<Client>();
  let rows: SentRows = new Map();
  let rowsKnown = false;
  let endpointsJson: string | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  /** Set while a page is connected: stops both read loops. */
  let stopLoops: (() => void) | undefined;
  let closed = false;

  const send = (client: Client, event: string, data: string): void => sendEvent(client.res, event, data);
  const broadcast = (event: string, data: string): void => {
    for (const client of clients) send(client, event, data);
  };
  const fullRows = (): string => fullRowsEvent(rows);

  const tickJobs = async (): Promise<void> => {
    try {
      const { rows: next, event: delta } = rowDelta(rows, await options.rows());
      rows = next;
      rowsKnown = true;
      for (const client of clients) {
        if (!client.primed) {
          send(client, 'jobs', fullRows());
          client.primed = true;
        } else if (delta !== undefined) send(client, 'jobs', delta);
      }
    } catch (err) {
      options.log.warn('dashboard: cannot list jobs: %s', errorMessage(err));
      broadcast('problem', JSON.stringify({ message: `cannot list jobs: ${personWords(err).message}` }));
    }
  };

  const tickEndpoints = async (): Promise<void> => {
    try {
      endpointsJson = JSON.stringify(await options.endpoints());
      broadcast('endpoints', endpointsJson);
    } catch (err) {
      options.log.warn('dashboard: cannot list endpoints: %s', errorMessage(err));
    }
  };

  const start = (): void => {
    // Reading every record costs ~0.15 ms a job (77 ms for 500): with thousands, slow down rather than spend a core.
    const stopJobs = pollLoop(tickJobs, (tookMs) => Math.max(jobsIntervalMs, 10 * tookMs));
    const stopEndpoints = pollLoop(tickEndpoints, () => endpointsIntervalMs);
    stopLoops = () => {
      stopJobs();
      stopEndpoints();
    };
    heartbeat = setInterval(() => broadcast('ping', '{}'), options.heartbeatMs ?? 15_000);
  };
  const stop = (): void => {
    stopLoops?.();
    stopLoops = undefined;
    clearInterval(heartbeat);
    rows = new Map();
    rowsKnown = false;
  };

  return {
    attach(res) {
      if (closed) {
        res.writeHead(503).end();
        return;
      }
      openEventStream(res);
      const client: Client = { res, primed: false };
      clients.add(client);
      res.on('close', () => {
        clients.delete(client);
        if (clients.size === 0) stop();
      });
      if (stopLoops === undefined) {
        start();
        return;
      }
      // The loop is already running: this page gets what the others have now, not a second of blank.
      if (rowsKnown) {
        send(client, 'jobs', fullRows());
        client.primed = true;
      }
      if (endpointsJson !== undefined) send(client, 'endpoints', endpointsJson);
    },
    get clientCount() {
      return clients.size;
    },
    close() {
      closed = true;
      stop();
      for (const client of clients) client.res.end();
      clients.clear();
    },
  };
}
