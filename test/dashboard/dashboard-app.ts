/**
 * A real app (config, simulator endpoint, job store in a temp dir) for the
 * dashboard tests: a menu of two models, one with the command that starts it.
 */
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createApp, type App } from '../../src/app.js';
import { startDashboard, type DashboardHandle } from '../../src/dashboard/server.js';
import { silentLogger } from '../../src/log.js';
import { findChromium } from '../helpers/find-chromium.js';
import { makeRepo } from '../helpers/git-repo.js';

export interface TestApp {
  readonly app: App;
  readonly root: string;
  readonly repo: string;
}

/** `endpointsYaml` is the body of the `endpoints:` map. */
export function makeTestApp(endpointsYaml: string): TestApp {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'la-dash-')));
  const repo = makeRepo();
  const config = join(root, 'models.yaml');
  writeFileSync(
    config,
    `endpoints:\n${endpointsYaml}` +
      'models:\n' +
      '  qwen3.8-27b:\n    notes: default mid-size coder\n    tags: [coder]\n' +
      '    bring_up: llama-server -hf unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL --port 8080 -c 131072\n' +
      '  gemma-small:\n    notes: quick answers, short context\n',
  );
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, CLAUDE_CONFIG_DIR: join(root, 'claude'), LOCALAGENTS_LOG: 'warn' };
  const app = createApp({ configPath: config, cwd: repo, env, log: silentLogger, stateDir: join(root, 'state') });
  return { app, root, repo };
}

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** The app's dashboard, open in a real headless Chromium at 1280×900. */
export async function openInChromium(app: App): Promise<{ dash: DashboardHandle; browser: Browser; page: Page }> {
  const dash = await startDashboard(app, { log: silentLogger });
  const browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS });
  // A set locale: the packaged build takes en-US@posix from LANG=C, which Intl rejects.
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  return { dash, browser, page };
}
