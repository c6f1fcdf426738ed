/**
 * The dashboard server over HTTP: loopback only, nothing without the token,
 * job rows and per-request data for the page, one probe loop for any number
 * of watching pages.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard, type DashboardHandle } from '../../src/dashboard/server.js';
import { MIN_PROBE_INTERVAL_MS } from '../../src/dashboard/throttled-listing.js';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { silentLogger } from '../../src/log.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { makeTestApp, type TestApp } from './dashboard-app.js';
import { makeRecord, seedJob, sessionRequests } from './fixtures.js';

function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

interface FeedEvent {
  readonly event: string;
  readonly data: unknown;
}

/** Reads the page's event stream until `done` says it has seen enough (or `timeoutMs` passes, when given). */
async function readFeed(url: string, done: (events: FeedEvent[]) => boolean, timeoutMs?: number): Promise<FeedEvent[]> {
  const abort = new AbortController();
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => abort.abort(), timeoutMs);
  const events: FeedEvent[] = [];
  try {
    const res = await fetch(url, { signal: abort.signal });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body!) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event !== undefined && data !== undefined) events.push({ event, data: JSON.parse(data) });
      }
      if (done(events)) return events;
    }
    return events;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

/** Task text is the user's or a model's: it must not end the page's data block and run as markup. */
const HOSTILE_TASK = 'Fix </script><img src=x onerror=alert(1)> and <!-- this --> & that';

describe('dashboard server', () => {
  let sim: Simulator;
  let t: TestApp;
  let dash: DashboardHandle;
  let finished: JobRecord;
  let base: string;

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp', slots: 2 });
    t = makeTestApp(`  gpu:\n    base_url: ${sim.url}\n`);
    finished = await seedJob(t.app.store, makeRecord({ created: new Date(Date.now() - 600_000) }), sessionRequests(7, { missAt: 5 }));
    await seedJob(t.app.store, makeRecord({ status: 'failed', error: 'Claude Code ended with an error: backend unreachable', result: undefined, task_preview: HOSTILE_TASK }));
    dash = await startDashboard(t.app, { log: silentLogger });
    base = `http://127.0.0.1:${dash.address.port}`;
  });

  afterAll(async () => {
    await dash?.close();
    await t?.app.close();
    await sim?.close();
  });

  it('listens on 127.0.0.1 only and prints a URL carrying the token', async () => {
    expect(dash.address).toMatchObject({ address: '127.0.0.1', family: 'IPv4' });
    expect(dash.url).toBe(`${base}/?token=${dash.token}`);
    const outside = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal);
    if (outside) {
      // The same port on this machine's network address: nothing listens there.
      const refused = await new Promise<string>((resolve) => {
        const socket = connect({ host: outside.address, port: dash.address.port });
        socket.once('connect', () => {
          socket.destroy();
          resolve('connected');
        });
        socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
      });
      expect(refused).toBe('ECONNREFUSED');
    }
  });

  it('answers 403 and no data to a wrong or missing token on every page and data path', async () => {
    const wrong = `${dash.token.slice(0, -2)}xx`;
    for (const path of ['/', '/api/jobs', '/api/endpoints', '/api/events', `/api/jobs/${finished.id}`, `/api/jobs/${finished.id}/requests`]) {
      for (const query of ['', `?token=${wrong}`, '?token=', `?token=${dash.token}x`]) {
        const res = await get(`${base}${path}${query}`);
        expect(res.status, `${path}${query}`).toBe(403);
        expect(res.body).not.toContain(finished.id);
        expect(res.body).not.toContain('qwen');
      }
    }
  });

  it('refuses a request whose Host is not this server (DNS rebinding)', async () => {
    const res = await get(`${base}/api/jobs?token=${dash.token}`, { host: `evil.example:${dash.address.port}` });
    expect(res.status).toBe(403);
    expect(res.body).not.toContain(finished.id);
  });

  it('serves the page, its scripts and uPlot from node_modules with a strict CSP', async () => {
    const page = await get(dash.url);
    expect(page.status).toBe(200);
    expect(page.body).toContain('/static/uPlot.iife.min.js');
    expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'");
    const uplot = await get(`${base}/static/uPlot.iife.min.js`);
    expect(uplot.status).toBe(200);
    expect(uplot.body).toContain('uPlot');
    expect((await get(`${base}/static/app.mjs`)).headers['content-type']).toContain('text/javascript');
    for (const path of ['/static/../package.json', '/static/%2e%2e%2fpackage.json', '/static/server.ts', '/static/']) {
      const res = await get(`${base}${path}`);
      expect(res.status, path).not.toBe(200);
      expect(res.body).not.toContain('"name": "localagents"');
    }
  });

  it('sends the jobs on record and the model menu inside the page itself, in a block no task text can break out of', async () => {
    const page = await get(dash.url);
    expect(page.body).not.toContain('<img src=x');
    expect(page.body).not.toContain('<!-- this');
    const block = /<script id="first-paint" type="application\/json">([^<]*)<\/script>/.exec(page.body);
    expect(block).not.toBeNull();
    const data = JSON.parse(block![1]!) as { jobs: Array<{ id: string; task: string }>; menu: Array<{ name: string; bring_up?: string }> };
    expect(data.jobs.map((j) => j.id)).toContain(finished.id);
    expect(data.jobs.map((j) => j.task)).toContain(HOSTILE_TASK);
    expect(data.menu.find((m) => m.name === 'qwen3.8-27b')?.bring_up).toMatch(/^llama-server /);
  });

  it('lists job rows from the records alone and gives a job its detail and one point per request', async () => {
    const jobs = JSON.parse((await get(`${base}/api/jobs?token=${dash.token}`)).body) as { jobs: Array<Record<string, unknown>> };
    expect(jobs.jobs.map((j) => j.id)).toContain(finished.id);
    expect(jobs.jobs.find((j) => j.id === finished.id)).toMatchObject({ status: 'succeeded', turns: 12, files_touched: 2, requests: 7, endpoint: 'gpu' });

    const detail = JSON.parse((await get(`${base}/api/jobs/${finished.id}?token=${dash.token}`)).body) as Record<string, unknown>;
    expect(detail).toMatchObject({ record: { id: finished.id, result: finished.result } });
    expect(detail.facts).toContainEqual({ fact: 'result', lines: [`result: ${finished.result}`] });

    const series = JSON.parse((await get(`${base}/api/jobs/${finished.id}/requests?token=${dash.token}`)).body) as { points: unknown[]; context: number };
    expect(series.points).toHaveLength(7);
    expect(series.context).toBe(131072);

    expect((await get(`${base}/api/jobs/20261129-111500-7gk2mq4xrz9d?token=${dash.token}`)).status).toBe(404);
    expect((await get(`${base}/api/jobs/..%2F..%2Fetc?token=${dash.token}`)).status).toBe(400);
  });

  it('streams every row on connect, then only the row that changed', async () => {
    const url = `${base}/api/events?token=${dash.token}`;
    const changedTo = 99;
    let saved = false;
    const events = await readFeed(url, (seen) => {
      const jobs = seen.filter((e) => e.event === 'jobs');
      if (jobs.length === 1 && !saved) {
        saved = true;
        void t.app.store.save({ ...finished, num_turns: changedTo });
      }
      return jobs.length >= 2 && seen.some((e) => e.event === 'endpoints');
    });
    const jobs = events.filter((e) => e.event === 'jobs').map((e) => e.data as { reset: boolean; upsert: Array<{ id: string; turns: number }> });
    expect(jobs[0]?.reset).toBe(true);
    expect(jobs[0]?.upsert.length).toBe(2);
    expect(jobs[1]).toMatchObject({ reset: false, upsert: [{ id: finished.id, turns: changedTo }], remove: [] });
    const endpoints = events.find((e) => e.event === 'endpoints')?.data as { endpoints: Array<{ name: string; state: string; slots: { total: number } }> };
    expect(endpoints.endpoints[0]).toMatchObject({ name: 'gpu', state: 'up', slots: { total: 2 } });
  });

  // That no loop runs while no page watches is live-feed.test.ts's (on a fake clock); here, the real server.
  it('probes the endpoints at most once per 2 s however many pages watch', async () => {
    const probedAt: number[] = [];
    const counted = {
      ...t.app,
      listModels: () => {
        probedAt.push(Date.now());
        return t.app.listModels();
      },
    };
    const second = await startDashboard(counted, { log: silentLogger });
    try {
      const url = `${second.url.replace('/?', '/api/events?')}`;
      // Six pages, each until it has had the endpoints three times (a probe, then the loop's later rounds).
      await Promise.all(Array.from({ length: 6 }, () => readFeed(url, (seen) => seen.filter((e) => e.event === 'endpoints').length >= 3)));
      await Promise.all(Array.from({ length: 10 }, () => get(second.url.replace('/?', '/api/endpoints?'))));
      expect(probedAt.length).toBeGreaterThanOrEqual(1);
      // However the pages and requests fell, no probe began within 2 s of the one before.
      const gaps = probedAt.slice(1).map((at, i) => at - (probedAt[i] as number));
      expect(gaps.filter((gap) => gap < MIN_PROBE_INTERVAL_MS)).toEqual([]);
    } finally {
      await second.close();
    }
  });

  it('says which port is taken instead of failing obscurely', async () => {
    await expect(startDashboard(t.app, { port: dash.address.port, log: silentLogger })).rejects.toMatchObject({
      code: 'bad_argument',
      message: expect.stringContaining(`port ${dash.address.port}`) as unknown,
    });
  });
});
