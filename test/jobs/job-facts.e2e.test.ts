/**
 * One set of job facts, two renderings: records left by real jobs (real Claude
 * Code against the simulator: done in a worktree, failed on a backend error,
 * running with an open request, queued behind it, cancelled) are rendered for
 * the calling model (job_status's text) and for a person (`localagents run` /
 * `show`), and every fact the record has appears in both; the dashboard's job
 * page (in a real Chromium) shows every fact of the record it was served, and
 * `localagents run`'s live status area every fact that changes while a job runs.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { LIVE_FACTS, statusLines } from '../../src/cli/follow/status-lines.js';
import { jobReport } from '../../src/cli/format-job.js';
import { startDashboard, type DashboardHandle } from '../../src/dashboard/server.js';
import { NO_PRICE_SETTINGS } from '../../src/config/price-settings.js';
import { formatCount, formatDuration } from '../../src/amounts.js';
import { FACT_ORDER, jobFacts, type FactKey, type JobFacts } from '../../src/jobs/view/job-facts.js';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { silentLogger } from '../../src/log.js';
import { jobSummary } from '../../src/mcp/job-view.js';
import type { JobDetail } from '../../src/jobs/view/job-detail.js';
import { jobUsageSummary } from '../../src/usage/job-summary.js';
import { findChromium } from '../helpers/find-chromium.js';
import { makeRepo } from '../helpers/git-repo.js';
import { MODEL_WORDS } from '../helpers/model-words.js';
import { until } from '../helpers/processes.js';
import { startSimulator, type ParsedRequest, type Simulator } from '../sim/index.js';

const words = (n: number): string => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
const taskOf = (req: ParsedRequest): string => JSON.stringify(req.messages[0] ?? '');

let sim: Simulator;
let app: App;
let dash: DashboardHandle;
let browser: Browser;
const records = new Map<string, JobRecord>();
/** What the dashboard's job page showed of each job, with the record it was served for it. */
const pages = new Map<string, { text: string; detail: JobDetail }>();

/** Opens the job's page with the live feed cut off (so it loads once), and reads its text and the detail it was served. */
async function dashboardPage(id: string): Promise<{ text: string; detail: JobDetail }> {
  const page = await browser.newPage({ locale: 'en-US' });
  try {
    await page.route('**/api/events**', (route) => route.abort());
    const served = page.waitForResponse((res) => new URL(res.url()).pathname === `/api/jobs/${id}`);
    await page.goto(`${dash.url}#job/${id}`);
    const detail = (await (await served).json()) as JobDetail;
    await page.waitForSelector(`#job-view[data-loaded="${id}"]`);
    return { text: await page.locator('#job-view').innerText(), detail };
  } finally {
    await page.close();
  }
}

beforeAll(async () => {
  sim = await startSimulator({
    flavor: 'llama.cpp',
    slots: 1,
    script: (req) => {
      const task = taskOf(req);
      if (task.includes('WRITE-JOB')) {
        return req.assistantTurns === 0 ? { text: 'Writing.', toolUse: { name: 'Write', input: { file_path: 'notes.md', content: 'notes\n' } } } : { text: 'Wrote notes.md.' };
      }
      if (task.includes('FAIL-JOB')) return { error: { status: 400, body: { error: { code: 400, message: 'the request is broken in a way no retry fixes', type: 'invalid_request_error' } } } };
      if (task.includes('LONG-JOB')) return { text: words(3000), tokenDelayMs: 40 };
      return { text: 'done' };
    },
  });
  const root = mkdtempSync(join(tmpdir(), 'la-facts-'));
  writeFileSync(join(root, 'models.yaml'), `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
  app = createApp({
    configPath: join(root, 'models.yaml'),
    cwd: makeRepo(),
    env: { PATH: process.env.PATH, HOME: root, CLAUDE_CONFIG_DIR: join(root, 'claude') },
    log: silentLogger,
    stateDir: join(root, 'state'),
  });
  dash = await startDashboard(app, { log: silentLogger });
  browser = await chromium.launch({ executablePath: await findChromium(), args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });

  const done = await app.jobs.start({ task: 'WRITE-JOB: write notes.md', isolation: 'worktree' });
  records.set('succeeded', await app.jobs.wait(done.id, 120));
  const failed = await app.jobs.start({ task: 'FAIL-JOB: anything' });
  records.set('failed', await app.jobs.wait(failed.id, 120));

  const long = await app.jobs.start({ task: 'LONG-JOB: write a long text' });
  const generating = await until(async () => (await app.jobs.get(long.id)).in_flight?.some((r) => r.phase === 'generating') === true, 60_000, 100);
  expect(generating).toBe(true);
  const queued = await app.jobs.start({ task: 'QUEUED-JOB: wait for the slot' });
  records.set('running', await app.jobs.get(long.id));
  records.set('queued', await app.jobs.get(queued.id));
  pages.set('running', await dashboardPage(long.id));
  pages.set('queued', await dashboardPage(queued.id));
  records.set('cancelled', await app.jobs.cancel(long.id));
  await app.jobs.cancel(queued.id);
  for (const status of ['succeeded', 'failed', 'cancelled']) pages.set(status, await dashboardPage(records.get(status)!.id));
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await dash?.close();
  await app?.close();
  await sim?.close();
});

/** What must be visible of a fact in any rendering: its values, in the words both audiences share. */
function evidence(facts: JobFacts, key: FactKey): string[] {
  const h = facts.headline;
  switch (key) {
    case 'headline':
      // A running job's clock moves between two renderings; a finished one's is fixed.
      return [h.id, h.status, ...(h.finished ? [formatDuration(h.elapsedS)] : []), ...(h.model === undefined ? [] : [h.model]), ...(h.endpoint === undefined ? [] : [h.endpoint])];
    case 'work': {
      const w = facts.work;
      return [`turns ${w.turns}`, `tool calls ${w.toolCalls}`, `model requests ${w.requests}`, `tokens in ${formatCount(w.tokens.input)}`, `out ${formatCount(w.tokens.output)}`];
    }
    case 'verification':
      return [facts.verification ?? ''];
    case 'endpoint_reason':
      return [facts.endpoint_reason ?? ''];
    case 'queue':
      return [`position ${facts.queue?.position}`, facts.queue?.waitingFor ?? ''];
    case 'usage':
      return [facts.usage ?? ''];
    case 'outcome':
      return [facts.outcome ?? ''];
    case 'last_activity':
      return [facts.last_activity ?? ''];
    case 'outage_wait':
      return [(facts.outage_wait ?? '').split(',')[0] ?? ''];
    case 'outages':
      return (facts.outages ?? []).map((o) => o.endpoint + ' ' + o.started_at.slice(11, 19));
    case 'failover_blocked':
      return [facts.failover_blocked ?? ''];
    case 'moves':
      return (facts.moves ?? []).map((m) => `moved from ${m.from} to ${m.to}`);
    case 'in_flight':
      // "request 3: generating" — the seconds after it move with the clock.
      return (facts.in_flight ?? []).map((line) => line.split(' for ')[0] ?? line);
    case 'backend_error':
      return [`HTTP ${facts.backend_error?.last.status}`, facts.backend_error?.last.message ?? ''];
    case 'result':
      return [facts.result ?? ''];
    case 'error':
      return [facts.error?.message ?? ''];
    case 'files':
      return [...(facts.files ?? [])];
    case 'media':
      return [`${facts.media?.images} images`];
    case 'sandbox':
      return [facts.sandbox ?? ''];
    case 'worktree':
      return [facts.worktree?.path ?? '', facts.worktree?.branch ?? '', ...(facts.worktree?.diffstat.split('\n').map((l) => l.trim()) ?? [])];
    case 'warnings':
      return [...(facts.warnings ?? [])];
    case 'logs':
      return [facts.logs ?? ''];
    case 'resumable':
      return [facts.resumable?.id ?? ''];
  }
}

describe('the facts of a real job, rendered for the calling model and for a person', () => {
  it.each(['succeeded', 'failed', 'running', 'queued', 'cancelled'])('%s: every fact of the record appears in both renderings', async (status) => {
    const record = records.get(status);
    expect(record?.status).toBe(status);
    // The usage line as job_status and show add it, from the job's own logs.
    const usage = (await jobUsageSummary(record!, app.store, NO_PRICE_SETTINGS)).text;
    const facts = jobFacts(record!, usage);
    const present = FACT_ORDER.filter((key) => facts[key] !== undefined);
    expect(present).toContain('usage');
    const texts = { model: jobSummary(record!, usage), person: jobReport(record!, usage) };
    for (const key of present) {
      for (const [audience, text] of Object.entries(texts)) {
        for (const bit of evidence(facts, key)) expect(text, `${audience} text lacks ${key}: "${bit}"`).toContain(bit);
      }
    }
  });

  it.each(['succeeded', 'failed', 'running', 'queued', 'cancelled'])('%s: the dashboard\'s job page shows every fact of the record it was served, in a person\'s words', (status) => {
    const { text, detail } = pages.get(status)!;
    expect(detail.record.status).toBe(status);
    const facts = jobFacts(detail.record, detail.usage.text as string);
    const present = FACT_ORDER.filter((key) => facts[key] !== undefined);
    expect(present).toContain('usage');
    for (const key of present) {
      for (const bit of evidence(facts, key)) expect(text, `the job page lacks ${key}: "${bit}"`).toContain(bit);
    }
    // The same lines `localagents show` prints for that record (a finished one: a running job's clock moves meanwhile).
    if (facts.headline.finished) for (const line of jobReport(detail.record, detail.usage.text as string).split('\n')) expect(text).toContain(line.trim());
    expect(text).not.toMatch(MODEL_WORDS);
  });

  it.each(['running', 'queued'])('%s: the live status area of `localagents run` shows every fact that changes while a job runs', (status) => {
    const record = records.get(status)!;
    const facts = jobFacts(record);
    const text = statusLines(record, undefined, new Date(), 0).join('\n');
    const live = FACT_ORDER.filter((key) => facts[key] !== undefined && LIVE_FACTS.has(key));
    expect(live).toEqual(expect.arrayContaining(['work', status === 'running' ? 'in_flight' : 'queue']));
    for (const key of live) {
      for (const bit of evidence(facts, key)) expect(text, `the status area lacks ${key}: "${bit}"`).toContain(bit);
    }
    // Its own headline: no id (the start line printed it), the rest of the headline fact.
    for (const bit of evidence(facts, 'headline').slice(1)) expect(text).toContain(bit);
    expect(text).not.toMatch(MODEL_WORDS);
  });

  it('the records carry the facts each case is about', () => {
    const facts = (status: string): JobFacts => jobFacts(records.get(status)!);
    expect(facts('succeeded')).toMatchObject({ files: [expect.stringContaining('notes.md')], worktree: { kept: true }, result: 'Wrote notes.md.' });
    expect(facts('succeeded').work.toolCalls).toBeGreaterThan(0);
    expect(facts('failed').error?.message).toBeTruthy();
    expect(facts('failed').backend_error?.last.status).toBe(400);
    expect(facts('running').in_flight?.[0]).toMatch(/^request \d+: generating/);
    expect(facts('queued').queue?.position).toBe(1);
    expect(facts('cancelled').error?.message).toMatch(/cancel/);
  });
});
