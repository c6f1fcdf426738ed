/**
 * The dashboard in a real headless Chromium (Debian's `chromium`, driven by
 * playwright-core): the page lists jobs, paginates and sorts them, charts one
 * point per backend request, follows a real job (Claude Code against the
 * simulator) from running to succeeded without a reload, and shows nothing
 * to a wrong token. Leaves screenshots in test-output/.
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard, type DashboardHandle } from '../../src/dashboard/server.js';
import type { JobRecord, JobStatus } from '../../src/jobs/job-record.js';
import { silentLogger } from '../../src/log.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { makeTestApp, type TestApp } from './dashboard-app.js';
import { makeRecord, seedJob, sessionRequests } from './fixtures.js';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
const OUT = join(REPO_ROOT, 'test-output');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const FEATURED_REQUESTS = 30;
const OTHER_JOBS = 130;

describe('dashboard in Chromium', () => {
  let sim: Simulator;
  let loading: Simulator;
  let t: TestApp;
  let dash: DashboardHandle;
  let browser: Browser;
  let page: Page;
  let featured: JobRecord;

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp', slots: 2, context: 131072 });
    loading = await startSimulator({ flavor: 'llama.cpp', loadingMs: 600_000 });
    t = makeTestApp(
      `  gpu:\n    base_url: ${sim.url}\n    host: gpu-box\n` +
        `  spare:\n    base_url: ${loading.url}\n    host: spare-box\n` +
        '  rack:\n    base_url: http://127.0.0.1:9\n    backend: vllm\n    host: rack-01\n',
    );
    const statuses: JobStatus[] = ['succeeded', 'succeeded', 'succeeded', 'failed', 'cancelled', 'timeout', 'interrupted'];
    const day = 86_400_000;
    for (let i = 0; i < OTHER_JOBS; i++) {
      const status = statuses[i % statuses.length]!;
      const n = 2 + (i % 17);
      await seedJob(
        t.app.store,
        makeRecord({
          created: new Date(Date.now() - day - i * 3_600_000),
          status,
          num_turns: n,
          task_preview: `Chore ${i}: tidy module ${i % 9} and run its tests.`,
          error: status === 'succeeded' ? undefined : `job ${status}`,
          result: status === 'succeeded' ? 'Done; tests pass.' : undefined,
        }),
        sessionRequests(n),
      );
    }
    await seedJob(
      t.app.store,
      makeRecord({ created: new Date(Date.now() - 3_600_000), status: 'failed', error: 'Claude Code ended with an error: prompt is too long', result: undefined, task_preview: 'Port the whole test suite to node:test.' }),
      sessionRequests(22, { failLast: true }),
    );
    featured = await seedJob(
      t.app.store,
      makeRecord({
        created: new Date(Date.now() - 1_200_000),
        num_turns: FEATURED_REQUESTS,
        task_preview: 'Add a --json flag to `localagents models` and a test for it. Files: src/cli/program.ts, test/cli/models.test.ts.',
        isolation: 'worktree',
        worktree: {
          path: '/home/dev/.local/state/localagents/worktrees/job',
          branch: 'local-agent/job',
          base_commit: '4f2a9c1e7b3d5a8c9e0f1a2b3c4d5e6f7a8b9c0d',
          kept: true,
          diffstat: ' src/cli/program.ts       | 14 ++++++++++++--\n test/cli/models.test.ts  | 41 +++++++++++++++++++++++++++++++++++++++++\n 2 files changed, 53 insertions(+), 2 deletions(-)',
          commits: 0,
          commands: { review: 'git -C /home/dev/.local/state/localagents/worktrees/job diff 4f2a9c1e7b3d' },
          warnings: [],
        },
      }),
      sessionRequests(FEATURED_REQUESTS, { missAt: 19 }),
    );
    dash = await startDashboard(t.app, { log: silentLogger });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    mkdirSync(OUT, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await dash?.close();
    await t?.app.close();
    await sim?.close();
    await loading?.close();
  });

  it('lists the jobs a page at a time with the endpoints above, and sorts by any column', async () => {
    await page.goto(dash.url);
    await page.waitForSelector(`tr[data-id="${featured.id}"][data-status="succeeded"]`);
    expect(await page.locator('#jobs tbody tr').count()).toBe(50);
    expect(await page.textContent('#page-info')).toBe('page 1 of 3');
    expect(await page.textContent('#jobs-count')).toContain(`${OTHER_JOBS + 2} total`);
    await page.waitForSelector('[data-endpoint="gpu"][data-state="up"]');
    await page.waitForSelector('[data-endpoint="spare"][data-state="loading"]');
    await page.waitForSelector('[data-endpoint="rack"][data-state="down"]');
    expect(await page.getAttribute('[data-endpoint="gpu"] .slots', 'data-total')).toBe('2');

    await page.click('th[data-key="turns"] button');
    expect(await page.getAttribute('#jobs tbody tr:first-child', 'data-id')).toBe(featured.id); // 30 turns: the most
    await page.click('th[data-key="created_at"] button');
    await page.fill('#filter', 'node:test');
    expect(await page.locator('#jobs tbody tr').count()).toBe(1);
    await page.fill('#filter', '');
    await page.screenshot({ path: join(OUT, 'dashboard-jobs.png') });
  });

  it('opens a finished job with one chart point per backend request', async () => {
    await page.goto(dash.url);
    await page.click(`tr[data-id="${featured.id}"] a`);
    await page.waitForSelector(`#job-view[data-loaded="${featured.id}"]`);
    const logged = readFileSync(t.app.store.paths(featured.id).requests, 'utf8').trim().split('\n');
    const generation = logged.filter((l) => (JSON.parse(l) as { path: string }).path === '/v1/messages');
    expect(generation.length).toBe(FEATURED_REQUESTS);
    expect(logged.length).toBeGreaterThan(FEATURED_REQUESTS); // the count_tokens line is not a point
    for (const chart of ['latency', 'prompt', 'output']) {
      expect(await page.getAttribute(`#chart-${chart}`, 'data-points')).toBe(String(FEATURED_REQUESTS));
      expect(await page.locator(`#chart-${chart} canvas`).count()).toBe(1);
    }
    expect(await page.textContent('#req-summary')).toContain('cache mostly missed at #19');
    expect(await page.textContent('#job-status')).toBe('succeeded');
    expect(await page.textContent('#job-files')).toContain('src/cli/program.ts');
    expect(await page.textContent('#job-diffstat')).toContain('2 files changed, 53 insertions(+), 2 deletions(-)');
    await page.screenshot({ path: join(OUT, 'dashboard.png'), fullPage: true });
    if (process.env.UPDATE_DOCS_SCREENSHOT === '1') {
      // The README's picture: refreshed on request only, so a plain test run leaves the tree clean.
      mkdirSync(join(REPO_ROOT, 'docs'), { recursive: true });
      copyFileSync(join(OUT, 'dashboard.png'), join(REPO_ROOT, 'docs', 'dashboard.png'));
    }
  });

  it('follows a real job from running to succeeded without a reload', async () => {
    await page.goto(dash.url);
    await page.waitForSelector('body[data-live="open"]');
    await page.evaluate(() => Object.assign(globalThis, { sameDocument: true }));
    // A slow answer (~500 tokens at 15 ms each): the job list shows its speed and the output chart a growing bar.
    const counting = Array.from({ length: 260 }, (_, i) => `file${i}`).join(' ');
    sim.setScript([{ text: `${counting} There are 2 files.`, delayMs: 1_500, tokenDelayMs: 15 }]);
    const started = await t.app.jobs.start({ task: 'Count the files in this repository and say how many.', model: 'qwen3.8-27b' });

    await page.waitForSelector(`tr[data-id="${started.id}"][data-status="running"]`, { timeout: 20_000 });
    await expect.poll(() => page.textContent(`tr[data-id="${started.id}"] td[data-col="speed"]`), { timeout: 30_000, interval: 100 }).toMatch(/^\d+ tok\/s$/);
    await page.click(`tr[data-id="${started.id}"] a`);
    await page.waitForSelector('#job-view[data-status="running"]');
    const bar = async (): Promise<number> => Number((await page.getAttribute('#chart-output', 'data-open')) ?? 'NaN');
    await page.waitForSelector('#chart-output[data-open]', { timeout: 30_000 });
    const first = await bar();
    await expect.poll(bar, { timeout: 30_000, interval: 100 }).toBeGreaterThan(first);
    await page.waitForSelector('#job-view[data-status="succeeded"]', { timeout: 60_000 });
    await page.waitForSelector('#chart-output:not([data-open])');
    expect(await page.evaluate(() => (globalThis as { sameDocument?: boolean }).sameDocument)).toBe(true);

    const record = await t.app.jobs.get(started.id);
    expect(record).toMatchObject({ status: 'succeeded' });
    expect(record.result).toMatch(/There are 2 files\.$/);
    await page.waitForSelector(`#chart-prompt[data-points="${record.requests}"]`);
    expect(record.requests).toBeGreaterThanOrEqual(1);
    await page.click('.back');
    await page.waitForSelector(`tr[data-id="${started.id}"][data-status="succeeded"]`);
  }, 90_000);

  it('shows a wrong token 403 and no job data', async () => {
    const other = await browser.newPage();
    try {
      const response = await other.goto(dash.url.replace(dash.token, `${dash.token.slice(0, -4)}AAAA`));
      expect(response?.status()).toBe(403);
      const text = await other.content();
      expect(text).not.toContain(featured.id);
      expect(text).toContain('wrong or missing token');
    } finally {
      await other.close();
    }
  });
});
