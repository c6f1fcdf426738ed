/**
 * The dashboard's usage view in a real headless Chromium: jobs over several days
 * (some failed, some with caller bytes), charted per day, and a table whose every
 * cell is the cell `localagents usage` prints for the same state directory.
 * Then one job's usage summary, the same line and figures on its dashboard page, in
 * `localagents show` and in job_status through the official MCP client, and the
 * same figures as its `localagents usage --by job` row. Leaves docs/dashboard-usage.png.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DashboardHandle } from '../../src/dashboard/server.js';
import type { JobStatus } from '../../src/jobs/record/job-record.js';
import { runCli } from '../cli/cli-process.js';
import { BIN } from '../e2e/harness.js';
import { makeTestApp, openInChromium, type TestApp } from './dashboard-app.js';
import { makeRecord, seedJob, sessionRequests } from './fixtures.js';

const DOCS = resolve(import.meta.dirname, '..', '..', 'docs');
/** Noon, `daysBack` local days before yesterday: a day's jobs, minutes apart, never straddle a midnight. */
const noonOf = (daysBack: number): number => {
  const now = new Date();
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1 - daysBack, 12).getTime();
};

describe('dashboard usage view in Chromium', () => {
  let t: TestApp;
  let dash: DashboardHandle;
  let browser: Browser;
  let page: Page;
  const ids: string[] = [];
  const cliEnv = (): Record<string, string> => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: t.root, LOCALAGENTS_STATE_DIR: join(t.root, 'state') });

  beforeAll(async () => {
    t = makeTestApp('  gpu:\n    base_url: http://127.0.0.1:9\n');
    const statuses: JobStatus[] = ['succeeded', 'succeeded', 'failed', 'succeeded', 'cancelled'];
    for (let i = 0; i < 24; i++) {
      const n = 3 + (i % 9);
      const record = await seedJob(
        t.app.store,
        makeRecord({ created: new Date(noonOf(i % 6) - i * 60_000), status: statuses[i % statuses.length], num_turns: n }),
        sessionRequests(n),
      );
      // What the calling Claude read and wrote about it, as the MCP layer records it.
      appendFileSync(t.app.store.paths(record.id).caller, `${JSON.stringify({ t: record.created_at, tool: 'run_agent', args_bytes: 1800 + i, result_bytes: 2400 })}\n`);
      appendFileSync(t.app.store.paths(record.id).caller, `${JSON.stringify({ t: record.created_at, tool: 'wait_job', args_bytes: 60, result_bytes: 3100 + 10 * i })}\n`);
      ids.push(record.id);
    }
    ({ dash, browser, page } = await openInChromium(t.app));
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

  it('shows one job\'s usage summary on its page as `localagents show` and job_status do, with its usage --by job figures', async () => {
    const [succeeded, failed] = [ids[0]!, ids[2]!];
    for (const id of [succeeded, failed]) {
      await page.goto(`${dash.url}#job/${id}`);
      await page.waitForSelector(`#job-view[data-loaded="${id}"]`);
      const onPage = await page.textContent('[data-fact="usage"]');

      const show = await runCli(['--config', join(t.root, 'models.yaml'), 'show', id], { cwd: t.repo, env: cliEnv() });
      expect(show.code, show.stderr).toBe(0);
      const shown = show.stdout.split('\n').find((l) => l.startsWith('usage: '));
      const json = await runCli(['--config', join(t.root, 'models.yaml'), 'show', id, '--json'], { cwd: t.repo, env: cliEnv() });
      const summary = (JSON.parse(json.stdout) as { usage_summary: { text: string; requests: number; prompt_tokens_evaluated: number; prompt_tokens_from_cache: number; output_tokens: number; gpu_ms: number; caller: { status: string; reason?: string }; computed: unknown } }).usage_summary;

      const client = new Client({ name: 'usage-summary', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, '--config', join(t.root, 'models.yaml')], cwd: t.repo, env: cliEnv(), stderr: 'pipe' }));
      try {
        await client.listTools();
        const status = (await client.callTool({ name: 'jobs', arguments: { job_id: id } })) as { content: { type: string; text: string }[]; structuredContent: { usage_summary: typeof summary } };
        const text = status.content.map((c) => c.text).join('\n');
        expect(text.split('\n')).toContain(summary.text);
        // The same figures: job_status's own call adds to caller.jsonl, without a tool_use id, so the caller side stays unknown.
        expect(status.structuredContent.usage_summary).toEqual(summary);
      } finally {
        await client.close();
      }
      expect(shown).toBe(summary.text);

      const usage = await runCli(['--config', join(t.root, 'models.yaml'), 'usage', '--by', 'job', '--json'], { cwd: t.repo, env: cliEnv() });
      const row = (JSON.parse(usage.stdout) as { rows: { key: string; requests: number; evaluated: number; cached: number; output: number; gpu_ms: number; caller: { measured: number; unknown: number } }[] }).rows.find((r) => r.key === id)!;
      expect([summary.requests, summary.prompt_tokens_evaluated, summary.prompt_tokens_from_cache, summary.output_tokens, summary.gpu_ms]).toEqual([row.requests, row.evaluated, row.cached, row.output, row.gpu_ms]);
      expect(row.caller).toMatchObject({ measured: 0, unknown: 1 });
      // The page was read before job_status's call was logged: it matches `show`.
      expect(onPage).toBe(summary.text);
      // The MCP client here is not Claude Code: no tool_use id, so no transcript to measure, and no dollar figure.
      expect(summary.caller).toEqual({ status: 'unknown', reason: 'the caller sent no tool_use id (not Claude Code, or a version before it did)' });
      expect(summary.computed).toBeNull();
      expect(summary.text).toContain('caller cost unknown: the caller sent no tool_use id');
      expect(summary.text).not.toMatch(/\$/);
    }
  }, 120_000);
});
