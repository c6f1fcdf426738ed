/**
 * The dashboard from the plugin bundle alone: a plugin installed from git has
 * plugin/localagents.mjs and package.json but no src/ or node_modules, yet the page,
 * its scripts and uPlot must load. The bundle is built in memory from the
 * current src/ (the committed one is the lead's to rebuild) and run from a
 * folder that holds nothing else.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleText } from '../../scripts/bundle.mjs';
import { OWN_ASSETS, UPLOT_ASSETS } from '../../src/dashboard/static-assets.js';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
const UPLOT_DIST = join(dirname(createRequire(import.meta.url).resolve('uplot/package.json')), 'dist');

/** Starts `localagents dashboard` and resolves with the URL it prints. */
function startDashboard(child: ChildProcess): Promise<string> {
  return new Promise((resolveUrl, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`no dashboard URL within 30 s; stdout: ${out} stderr: ${err}`)), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const url = /localagents dashboard: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(out)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        resolveUrl(url);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the bundle exited with ${code}; stderr: ${err}`));
    });
  });
}

describe('the dashboard from the plugin bundle', () => {
  let child: ChildProcess | undefined;

  afterAll(() => {
    if (child?.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGTERM');
  });

  it('serves the page with the jobs and menu, its scripts and uPlot, with no src/ or node_modules beside it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'la-bundle-dash-'));
    mkdirSync(join(root, 'plugin'));
    const bundle = join(root, 'plugin', 'localagents.mjs');
    writeFileSync(bundle, await bundleText());
    copyFileSync(join(REPO_ROOT, 'package.json'), join(root, 'package.json')); // the plugin's checkout has it: the version comes from there
    const config = join(root, 'models.yaml');
    writeFileSync(config, 'endpoints:\n  gpu:\n    base_url: http://127.0.0.1:9\nmodels:\n  coder:\n    notes: the coder\n    bring_up: llama-server -m coder.gguf --port 8080\n');
    child = spawn(process.execPath, [bundle, '--config', config, 'dashboard'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, LOCALAGENTS_STATE_DIR: join(root, 'state'), LOCALAGENTS_LOG: 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const url = await startDashboard(child);

    const page = await fetch(url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<script id="first-paint" type="application/json">');
    expect(html).toContain('llama-server -m coder.gguf --port 8080');

    const base = new URL(url).origin;
    const expected = [
      ...OWN_ASSETS.map((name) => [name, readFileSync(join(REPO_ROOT, 'src', 'dashboard', 'public', name), 'utf8')] as const),
      ...UPLOT_ASSETS.map((name) => [name, readFileSync(join(UPLOT_DIST, name), 'utf8')] as const),
    ];
    for (const [name, body] of expected) {
      const res = await fetch(`${base}/static/${name}`);
      expect(res.status, name).toBe(200);
      // Compared by equality, not printed: uPlot is 50 kB.
      expect((await res.text()) === body, `${name} as served by the bundle differs from the source`).toBe(true);
    }
    expect((await fetch(`${base}/static/server.ts`)).status).toBe(404);
  }, 90_000);
});
