/**
 * The dashboard's usage view in a real headless Chromium: jobs over several days
 * (some failed, some with caller bytes), charted per day, and a table whose every
 * cell is the cell `localagents usage` prints for the same state directory.
 * Leaves docs/dashboard-usage.png.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard, type DashboardHandle } from '../../src/dashboard/server.js';
import type { JobStatus } from '../../src/jobs/job-record.js';
import { silentLogger } from '../../src/log.js';
import { runCli } from '../cli/cli-process.js';
import { findChromium } from '../helpers/find-chromium.js';
import { makeTestApp, type TestApp } from './dashboard-app.js';
import { makeRecord, seedJob, sessionRequests } from './fixtures.js';

const DOCS = resolve(import.meta.dirname, '..', '..', 'docs');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const DAY = 86_400_000;

describe('dashboard usage view in Chromium', () => {
  let t: TestApp;
  let dash: DashboardHandle;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    t = makeTestApp('  gpu:\n    base_url: http://127.0.0.1:9\n');
    const statuses: JobStatus[] = ['succeeded', 'succeeded', 'failed', 'succeeded', 'cancelled'];
    for (let i = 0; i < 24; i++) {
      const n = 3 + (i % 9);
      const record = await seedJob(
        t.app.store,
        makeRecord({ created: new Date(Date.now() - (i % 6) * DAY - i * 60_000), status: statuses[i % statuses.length], num_turns: n }),
        sessionRequests(n),
      );
      // What the calling Claude read and wrote about it, as the MCP layer records it.
      appendFileSync(t.app.store.paths(record.id).caller, `${JSON.stringify({ t: record.created_at, tool: 'run_agent', args_bytes: 1800 + i, result_bytes: 2400 })}\n`);
      appendFileSync(t.app.store.paths(record.id).caller, `${JSON.stringify({ t: record.created_at, tool: 'wait_job', args_bytes: 60, result_bytes: 3100 + 10 * i })}\n`);
    }
    dash = await startDashboard(t.app, { log: silentLogger });
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await dash?.close();
    await t?.app.close();
  });

  it('charts tokens, savings and jobs per day, with the same rows as `localagents usage`', async () => {
    await page.goto(dash.url);
    await page.waitForSelector('#usage-table tbody tr');
    const shown = await page.evaluate<string[][]>(`[...document.querySelectorAll('#usage-table tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''))`);

    const cli = await runCli(['--config', join(t.root, 'models.yaml'), 'usage', '--since', '30d'], {
      cwd: t.repo,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: t.root, LOCALAGENTS_STATE_DIR: join(t.root, 'state') },
    });
    expect(cli.code, cli.stderr).toBe(0);
    const [, ...lines] = cli.stdout.split('\n\n')[0]!.split('\n');
    const printed = lines.map((l) => l.trim().split(/\s{2,}/));
    expect(shown).toEqual(printed);
    expect(shown).toHaveLength(6);
    expect(await page.textContent('#usage-total')).toBe(cli.stdout.split('\n\n')[1]!.trim().replace(/\n/g, ''));

    for (const chart of ['#chart-usage-tokens', '#chart-usage-saved', '#chart-usage-jobs']) {
      expect(await page.getAttribute(chart, 'data-points')).toBe('6');
    }
    expect(await page.evaluate<string[]>(`[...document.querySelectorAll('#chart-usage-jobs .u-series .u-label')].map((l) => l.textContent)`)).toEqual(['day', 'other', 'failed', 'succeeded']);
    mkdirSync(DOCS, { recursive: true });
    await page.locator('#usage-section').screenshot({ path: join(DOCS, 'dashboard-usage.png') });
  }, 60_000);
});
