/**
 * The dashboard in a real headless Chromium (found by findChromium, driven by
 * playwright-core): the page lists jobs, paginates and sorts them, charts one
 * point per backend request, follows a real job (Claude Code against the
 * simulator) from running to succeeded without a reload, and shows nothing
 * to a wrong token. Leaves screenshots in test-output/.
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DashboardHandle } from '../../src/dashboard/server.js';
import type { JobRecord, JobStatus } from '../../src/jobs/record/job-record.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { makeTestApp, openInChromium, type TestApp } from './dashboard-app.js';
import { makeRecord, seedJob, sessionRequests, type RequestSpec } from './fixtures.js';
import { MODEL_WORDS } from '../helpers/model-words.js';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
const OUT = join(REPO_ROOT, 'test-output');
const FEATURED_REQUESTS = 30;
const OTHER_JOBS = 130;
const TOTAL_JOBS = OTHER_JOBS + 5;
const BRING_UP = 'llama-server -hf unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL --port 8080 -c 131072';
/** A short job: three small prompts (about 1.2k–1.6k tokens against a 131k context), 420 ms of requests. */
const QUICK_REQUESTS: RequestSpec[] = [
  { cached: 0, fresh: 1_180, output: 24, ttfbMs: 95, totalMs: 180 },
  { cached: 1_204, fresh: 160, output: 31, ttfbMs: 60, totalMs: 140 },
  { cached: 1_395, fresh: 210, output: 18, ttfbMs: 70, totalMs: 100 },
];
/** Every request about one second: the latency axis must still tell its ticks apart. */
const STEADY_REQUESTS: RequestSpec[] = [0, 1, 2, 3, 4].map((i) => ({ cached: 20_000 + i * 900, fresh: 900, output: 40, ttfbMs: 996 + i, totalMs: 1_002 + 2 * i }));

/**
 * Runs in the page (a string: the tests compile without the DOM types). Finds
 * the legend entry `label` of `chart`, takes its swatch's colour, and counts
 * the canvas pixels of exactly that colour: how many, and the tallest column.
 */
const LEGEND_COLOUR_ON_CANVAS = `(chart, label, part) => {
  const root = document.querySelector(chart);
  const row = [...root.querySelectorAll('.u-series')].find((r) => r.querySelector('.u-label')?.textContent === label);
  if (!row) return { pixels: -1, tallest: -1 };
  const style = getComputedStyle(row.querySelector('.u-marker'));
  const [r, g, b] = (part === 'fill' ? style.backgroundColor : style.borderTopColor).match(/\\d+/g).map(Number);
  const canvas = root.querySelector('canvas');
  const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
  let pixels = 0;
  let tallest = 0;
  for (let x = 0; x < canvas.width; x++) {
    let column = 0;
    for (let y = 0; y < canvas.height; y++) {
      const i = (y * canvas.width + x) * 4;
      if (data[i] === r && data[i + 1] === g && data[i + 2] === b) column++;
    }
    pixels += column;
    tallest = Math.max(tallest, column);
  }
  return { pixels, tallest };
}`;

async function drawnAs(page: Page, chart: string, label: string, part: 'fill' | 'stroke' = 'fill'): Promise<{ pixels: number; tallest: number }> {
  const args = [chart, label, part].map((a) => JSON.stringify(a)).join(', ');
  return page.evaluate<{ pixels: number; tallest: number }>(`(${LEGEND_COLOUR_ON_CANVAS})(${args})`);
}

describe('dashboard in Chromium', () => {
  let sim: Simulator;
  let loading: Simulator;
  let t: TestApp;
  let dash: DashboardHandle;
  let browser: Browser;
  let page: Page;
  let featured: JobRecord;
  let failing: JobRecord;
  let waiting: JobRecord;
  let quick: JobRecord;
  let steady: JobRecord;

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
    failing = await seedJob(
      t.app.store,
      makeRecord({ created: new Date(Date.now() - 3_600_000), status: 'failed', error: 'Claude Code ended with an error: prompt is too long', result: undefined, task_preview: 'Port the whole test suite to node:test.' }),
      sessionRequests(22, { failLast: true }),
    );
    const started = Date.now() - 5_000;
    waiting = await seedJob(
      t.app.store,
      makeRecord({
        created: new Date(started - 400),
        status: 'running',
        started_at: new Date(started).toISOString(),
        finished_at: undefined,
        result: undefined,
        num_turns: 0,
        tool_calls: 0,
        files_touched: [],
        usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0 },
        task_preview: 'Rename the config loader and fix its imports.',
      }),
    );
    const quickAt = new Date(Date.now() - 7_200_000);
    quick = await seedJob(
      t.app.store,
      makeRecord({
        created: quickAt,
        started_at: quickAt.toISOString(),
        finished_at: new Date(quickAt.getTime() + 420).toISOString(),
        num_turns: 3,
        task_preview: 'Say which Node version package.json pins.',
      }),
      QUICK_REQUESTS,
    );
    steady = await seedJob(t.app.store, makeRecord({ created: new Date(Date.now() - 9_000_000), num_turns: 5, task_preview: 'List the exported functions of src/log.ts.' }), STEADY_REQUESTS);
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
    ({ dash, browser, page } = await openInChromium(t.app));
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
    expect(await page.textContent('#jobs-count')).toContain(`${TOTAL_JOBS} total`);
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
    expect(await page.textContent('[data-fact="files"]')).toBe('files touched: /home/dev/project/src/cli/program.ts, /home/dev/project/test/cli/models.test.ts');
    expect(await page.textContent('#job-diffstat')).toContain('2 files changed, 53 insertions(+), 2 deletions(-)');
    await page.screenshot({ path: join(OUT, 'dashboard.png'), fullPage: true });
    if (process.env.UPDATE_DOCS_SCREENSHOT === '1') {
      // The README's picture: refreshed on request only, so a plain test run leaves the tree clean.
      mkdirSync(join(REPO_ROOT, 'docs'), { recursive: true });
      copyFileSync(join(OUT, 'dashboard.png'), join(REPO_ROOT, 'docs', 'dashboard.png'));
    }
  });

  it('paints the jobs on record and the model menu before the live feed says anything', async () => {
    const fresh = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    try {
      await fresh.route('**/api/events**', (route) => route.abort()); // no live update ever reaches this page
      await fresh.goto(dash.url);
      await fresh.screenshot({ path: join(OUT, 'dashboard-first-paint.png'), fullPage: true });
      expect(await fresh.isHidden('#jobs-empty')).toBe(true);
      expect(await fresh.locator('#jobs tbody tr').count()).toBe(50);
      expect(await fresh.textContent('#jobs-count')).toBe(`${TOTAL_JOBS} total · 1 running`);
      expect(await fresh.getAttribute('#jobs tbody tr:first-child', 'data-id')).toBe(waiting.id); // the newest
      expect(await fresh.textContent(`tr[data-id="${quick.id}"] td[data-col="elapsed"]`)).toBe('420 ms');

      const menu = fresh.locator('[data-model="qwen3.8-27b"]');
      expect(await menu.textContent()).toContain('default mid-size coder');
      expect(await menu.textContent()).toContain('coder');
      expect(await menu.locator('.bring-up').textContent()).toBe(BRING_UP);
      expect(await fresh.textContent('[data-model="gemma-small"]')).toContain('No start command in models.yaml');
      expect(await fresh.evaluate('document.body.innerText')).not.toMatch(MODEL_WORDS);
    } finally {
      await fresh.close();
    }
  });

  it('opens a job page with what it knows at once: a waiting line, failed requests, readable axes, small prompts', async () => {
    const fresh = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    const open = async (job: JobRecord): Promise<void> => {
      await fresh.goto('about:blank');
      await fresh.goto(`${dash.url}#job/${job.id}`);
      await fresh.waitForSelector(`#job-view[data-loaded="${job.id}"]`);
    };
    const ticks = async (): Promise<string[]> => {
      await fresh.waitForSelector('#chart-latency[data-y-ticks]');
      return ((await fresh.getAttribute('#chart-latency', 'data-y-ticks')) ?? '').split('|');
    };
    try {
      await open(waiting);
      await fresh.screenshot({ path: join(OUT, 'dashboard-job-waiting.png'), fullPage: true });
      expect(await fresh.textContent('#req-waiting')).toBe('Waiting for the first request to the model…');
      expect(await fresh.isVisible('#req-waiting')).toBe(true);
      expect(await fresh.isHidden('#charts')).toBe(true);
      expect(await fresh.locator('#job-view canvas').count()).toBe(0);

      await open(failing);
      await fresh.screenshot({ path: join(OUT, 'dashboard-job-failed-request.png'), fullPage: true });
      expect(await fresh.getAttribute('#chart-prompt', 'data-points')).toBe('23');
      // The failed request (#23, no usage) stands as a bar in its own colour, not as a gap.
      await expect.poll(async () => (await drawnAs(fresh, '#chart-prompt', 'failed request')).tallest, { timeout: 5_000 }).toBeGreaterThan(40);

      await open(steady);
      await fresh.screenshot({ path: join(OUT, 'dashboard-job-steady.png'), fullPage: true });
      const steadyTicks = await ticks();
      expect(steadyTicks.length).toBeGreaterThanOrEqual(3);
      expect(new Set(steadyTicks).size).toBe(steadyTicks.length);
      expect(steadyTicks.at(-1)).toMatch(/^1(\.0+)? s$/);

      await open(quick);
      await fresh.screenshot({ path: join(OUT, 'dashboard-job-quick.png'), fullPage: true });
      expect(await fresh.textContent('#job-elapsed')).toBe('420 ms');
      const quickTicks = await ticks();
      expect(new Set(quickTicks).size).toBe(quickTicks.length);
      for (const tick of quickTicks) expect(tick).toMatch(/^\d+ ms$/);
      // Prompts of ~1.5k tokens under a 131k context line: bars a reader can see, not a 2-pixel sliver.
      expect(await fresh.locator('#chart-prompt .u-series .u-label', { hasText: 'context window' }).count()).toBe(1);
      await expect.poll(async () => (await drawnAs(fresh, '#chart-prompt', 'reused from KV cache')).tallest, { timeout: 5_000 }).toBeGreaterThan(30);
      await expect.poll(async () => (await drawnAs(fresh, '#chart-prompt', 'evaluated anew')).tallest, { timeout: 5_000 }).toBeGreaterThan(30);
      expect(await fresh.evaluate('document.body.innerText')).not.toMatch(MODEL_WORDS);
    } finally {
      await fresh.close();
    }
  });

  it('shows how much of its prompt the server has read while a real request reads it', async () => {
    const fresh = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    try {
      await fresh.goto(dash.url);
      await fresh.waitForSelector('body[data-live="open"]');
      // The first request reads its prompt (~15k tokens) over 20 s; the simulator's /slots counts it 2,048 tokens at a time.
      // On a loaded machine the page may see one count in five seconds: 20 s leaves it a second and a third.
      let arrived: () => void = () => undefined;
      const firstRequest = new Promise<void>((resolve) => (arrived = resolve));
      let seenEnough: () => void = () => undefined;
      const readUntil = new Promise<void>((resolve) => (seenEnough = resolve));
      sim.setScript((req) => {
        if (req.assistantTurns > 0) return { text: 'Done.' };
        arrived();
        return { text: 'Done.', delayMs: 20_000, readUntil };
      });
      const started = await t.app.jobs.start({ task: 'Say done.', model: 'qwen3.8-27b' });
      await fresh.waitForSelector(`tr[data-id="${started.id}"][data-status="running"]`, { timeout: 20_000 });
      await fresh.click(`tr[data-id="${started.id}"] a`);
      await fresh.waitForSelector('#job-view[data-status="running"]');

      const read = async (): Promise<number> => Number((await fresh.getAttribute('#chart-prompt', 'data-reading')) ?? 'NaN');
      // The open request's bar grows as the server reads (from 0, a batch at a time), and its line says so in the command line's words.
      // From the request's arrival, not the job's start: Claude Code's own start took most of 30 s on a loaded machine.
      await firstRequest;
      await expect.poll(read, { timeout: 12_000, interval: 100 }).toBeGreaterThan(0);
      const first = await read();
      await expect.poll(read, { timeout: 20_000, interval: 100 }).toBeGreaterThan(first);
      const line = (): Promise<string> => fresh.locator('#req-open li').first().innerText();
      await expect.poll(line, { timeout: 20_000, interval: 100 }).toMatch(/^request 1: reading the prompt for \d+ s, [\d,k]+ prompt tokens read \([\d,k]+ cached\) at ~[\d,k]+ tokens\/s, last byte \d+ s ago$/);
      expect((await drawnAs(fresh, '#chart-prompt', 'read so far (open request)')).tallest).toBeGreaterThan(10);
      expect(await fresh.evaluate('document.body.innerText')).not.toMatch(MODEL_WORDS);
      await fresh.screenshot({ path: join(OUT, 'dashboard-job-reading-prompt.png'), fullPage: true });
      seenEnough();

      // Once it answers, the bar is the prompt as the server counted it, and no line is left open.
      await fresh.waitForSelector('#job-view[data-status="succeeded"]', { timeout: 60_000 });
      await fresh.waitForSelector('#chart-prompt:not([data-reading])');
      expect(await fresh.locator('#req-open li').count()).toBe(0);
    } finally {
      await fresh.close();
    }
  }, 90_000);

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
