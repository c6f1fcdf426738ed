/**
 * Server-sent events for every open dashboard page: the job rows (a full set
 * when a page connects, then only the rows that changed) and the endpoint
 * listing. One read loop serves all pages, and it runs only while a page is
 * connected, so an idle dashboard reads nothing.
 */
import type { ServerResponse } from 'node:http';
import { errorMessage, personWords } from '../errors.js';
import type { Logger } from '../log.js';
import { redactSecrets } from '../secrets/redact.js';
import type { EndpointsView } from './endpoint-view.js';
import type { JobListRow } from '../jobs/job-facts.js';

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

/** A page that stops reading this far behind is dropped; its EventSource reconnects and starts afresh. */
const MAX_BACKLOG_BYTES = 4 * 1024 * 1024;

export function createLiveFeed(options: FeedOptions): LiveFeed {
  const jobsIntervalMs = options.jobsIntervalMs ?? 1000;
  const endpointsIntervalMs = options.endpointsIntervalMs ?? 2000;
  const clients = new Set<Client>();
  let rows = new Map<string, string>(); // id → the row's JSON as last sent
  let rowsKnown = false;
  let endpointsJson: string | undefined;
  let jobsTimer: NodeJS.Timeout | undefined;
  let endpointsTimer: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let running = false;
  let closed = false;

  const send = (client: Client, event: string, data: string): void => {
    if (client.res.destroyed || client.res.writableEnded) return;
    if (client.res.writableLength > MAX_BACKLOG_BYTES) {
      client.res.destroy();
      return;
    }
    client.res.write(`event: ${event}\ndata: ${redactSecrets(data)}\n\n`);
  };
  const broadcast = (event: string, data: string): void => {
    for (const client of clients) send(client, event, data);
  };
  const fullRows = (): string => `{"reset":true,"upsert":[${[...rows.values()].join(',')}],"remove":[]}`;

  const tickJobs = async (): Promise<void> => {
    const began = Date.now();
    try {
      const next = new Map((await options.rows()).map((row) => [row.id, JSON.stringify(row)]));
      const upsert = [...next].filter(([id, json]) => rows.get(id) !== json).map(([, json]) => json);
      const remove = [...rows.keys()].filter((id) => !next.has(id));
      rows = next;
      rowsKnown = true;
      const delta = upsert.length + remove.length > 0 ? `{"reset":false,"upsert":[${upsert.join(',')}],"remove":${JSON.stringify(remove)}}` : undefined;
      for (const client of clients) {
        if (!client.primed) {
          send(client, 'jobs', fullRows());
          client.primed = true;
        } else if (delta !== undefined) send(client, 'jobs', delta);
      }
    } catch (err) {
      options.log.warn('dashboard: cannot list jobs: %s', errorMessage(err));
      broadcast('problem', JSON.stringify({ message: `cannot list jobs: ${personWords(err).message}` }));
    } finally {
      // Reading every record costs ~0.15 ms a job (77 ms for 500): with thousands, slow down rather than spend a core.
      if (running) jobsTimer = setTimeout(() => void tickJobs(), Math.max(jobsIntervalMs, 10 * (Date.now() - began)));
    }
  };

  const tickEndpoints = async (): Promise<void> => {
    try {
      endpointsJson = JSON.stringify(await options.endpoints());
      broadcast('endpoints', endpointsJson);
    } catch (err) {
      options.log.warn('dashboard: cannot list endpoints: %s', errorMessage(err));
    } finally {
      if (running) endpointsTimer = setTimeout(() => void tickEndpoints(), endpointsIntervalMs);
    }
  };

  const start = (): void => {
    running = true;
    void tickJobs();
    void tickEndpoints();
    heartbeat = setInterval(() => broadcast('ping', '{}'), options.heartbeatMs ?? 15_000);
  };
  const stop = (): void => {
    running = false;
    clearTimeout(jobsTimer);
    clearTimeout(endpointsTimer);
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
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      res.write('retry: 2000\n\n');
      const client: Client = { res, primed: false };
      clients.add(client);
      res.on('close', () => {
        clients.delete(client);
        if (clients.size === 0) stop();
      });
      if (!running) {
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
