/**
 * The dashboard's endpoint card for a llama-server router (docs/backends.md §3.1), in a real headless Chromium:
 * the router's max_instances, each model's state, window and where it came from, a loaded model's slots, and which
 * loaded model a new job on an unloaded one would evict, as list_models says them. The page's polling loads
 * nothing: the router saw no load while it was open. Leaves test-output/dashboard-router.png.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DashboardHandle } from '../../src/dashboard/server.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { makeTestApp, openInChromium, type TestApp } from './dashboard-app.js';

const OUT = join(resolve(import.meta.dirname, '..', '..'), 'test-output');

describe('dashboard: a router endpoint in Chromium', () => {
  let sim: Simulator;
  let t: TestApp;
  let dash: DashboardHandle;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp', router: { models: [{ id: 'coder', loaded: true }, { id: 'writer', parallel: 2 }], modelsMax: 1, ctxSize: 65_536, parallel: 1 } });
    t = makeTestApp(`  gpu-box:\n    base_url: ${sim.url}\n`);
    ({ dash, browser, page } = await openInChromium(t.app));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await dash?.close();
    await t?.app.close();
    await sim?.close();
  });

  it('shows max_instances, each model\'s state, window and its source, slots, and what a new job would evict', async () => {
    await page.goto(dash.url);
    const card = '[data-endpoint="gpu-box"][data-state="up"]';
    await page.waitForSelector(`${card} li[data-model="writer"]`);
    expect(await page.textContent(`${card} .router`)).toBe('llama-server router: loads models on demand, keeps up to 1 model loaded at once (max_instances 1)');
    expect(await page.getAttribute(`${card} li[data-model="coder"]`, 'data-status')).toBe('loaded');
    expect(await page.getAttribute(`${card} li[data-model="writer"]`, 'data-status')).toBe('unloaded');
    const coder = await page.textContent(`${card} li[data-model="coder"]`);
    expect(coder).toContain('coder · loaded · ctx 65,536 (llama.cpp /v1/models meta.n_ctx (per slot))');
    expect(coder).toContain('slots 0/1 busy');
    expect(coder).toContain('loaded: a job starts on it at once');
    const writer = await page.textContent(`${card} li[data-model="writer"]`);
    expect(writer).toContain("writer · unloaded · ctx 32,768 (llama.cpp router's arguments for the model (--ctx-size / --parallel))");
    expect(writer).toContain('2 slots once loaded (router arguments)');
    expect(writer).toContain('a job loads writer first, evicting the least recently used idle model of coder');
    mkdirSync(OUT, { recursive: true });
    await page.locator(card).screenshot({ path: join(OUT, 'dashboard-router.png') });
    expect(sim.routerEvents).toEqual([]);
  }, 60_000);
});
