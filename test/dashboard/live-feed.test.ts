/** One read loop serves every open page, and none runs while no page is open (on a fake clock). */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EndpointsView } from '../../src/dashboard/endpoint-view.js';
import { createLiveFeed } from '../../src/dashboard/live-feed.js';
import { silentLogger } from '../../src/log.js';

/** A page's response: takes what is written, and goes away when told to. */
function page(): ServerResponse & { leave(): void; events(): string[] } {
  const emitter = new EventEmitter();
  let text = '';
  const res = Object.assign(emitter, {
    destroyed: false,
    writableEnded: false,
    writableLength: 0,
    writeHead: () => res,
    write: (chunk: string) => {
      text += chunk;
      return true;
    },
    end: () => {
      res.writableEnded = true;
    },
    destroy: () => {
      res.destroyed = true;
    },
    leave: () => emitter.emit('close'),
    events: () => [...text.matchAll(/^event: (.*)$/gm)].map((m) => m[1] as string),
  });
  return res as unknown as ServerResponse & { leave(): void; events(): string[] };
}

describe('the live feed', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('reads the endpoints once per interval however many pages watch, and not at all when none does', async () => {
    const endpoints = vi.fn(() => Promise.resolve({ endpoints: [], at: '2026-12-05T00:00:00.000Z' } as unknown as EndpointsView));
    const rows = vi.fn(() => Promise.resolve([]));
    const feed = createLiveFeed({ rows, endpoints, log: silentLogger, jobsIntervalMs: 1000, endpointsIntervalMs: 2000 });
    const pages = Array.from({ length: 6 }, page);
    pages.forEach((p) => feed.attach(p));
    await vi.advanceTimersByTimeAsync(10_000);
    // At 0, 2, 4, 6, 8 and 10 s: one loop for six pages, each of which got every listing.
    expect(endpoints).toHaveBeenCalledTimes(6);
    for (const p of pages) expect(p.events().filter((e) => e === 'endpoints')).toHaveLength(6);
    pages.forEach((p) => p.leave());
    expect(feed.clientCount).toBe(0);
    const [endpointReads, rowReads] = [endpoints.mock.calls.length, rows.mock.calls.length];
    await vi.advanceTimersByTimeAsync(60_000);
    expect([endpoints.mock.calls.length, rows.mock.calls.length]).toEqual([endpointReads, rowReads]);
    feed.attach(page()); // a page opening again starts the loop again
    await vi.advanceTimersByTimeAsync(0);
    expect(endpoints).toHaveBeenCalledTimes(endpointReads + 1);
    feed.close();
  });
});
