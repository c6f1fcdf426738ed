/**
 * Scheduling with real Claude Code sessions against simulators with known slot
 * counts: localagents places jobs on free slots and queues the rest instead of
 * letting requests pile up, silent, inside llama-server.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { silentLogger } from '../../src/log.js';
import { makeRepo } from '../helpers/git-repo.js';
import { until } from '../helpers/processes.js';
import { MODEL_WORDS } from '../helpers/model-words.js';
import { jobReport } from '../../src/cli/format-job.js';
import { jobSummary, jobView } from '../../src/mcp/job-view.js';
import { cleanupsAfterEach, simulatorFor } from '../helpers/cleanups.js';

const cleanups = cleanupsAfterEach();

function app(configYaml: string): { app: App; repo: string } {
  const root = mkdtempSync(join(tmpdir(), 'la-sched-'));
  writeFileSync(join(root, 'models.yaml'), configYaml);
  const repo = makeRepo();
  const a = createApp({
    configPath: join(root, 'models.yaml'),
    cwd: repo,
    env: { PATH: process.env.PATH, HOME: root, CLAUDE_CONFIG_DIR: join(root, 'claude') },
    log: silentLogger,
    stateDir: join(root, 'state'),
  });
  cleanups.push(() => a.close());
  return { app: a, repo };
}

async function waitAll(a: App, ids: string[], timeoutS = 120): Promise<JobRecord[]> {
  return Promise.all(ids.map((id) => a.jobs.wait(id, timeoutS)));
}

/** Samples a value every 20 ms until stopped; returns the maximum seen. */
function sampleMax(read: () => number): { stop(): number } {
  let max = read();
  const timer = setInterval(() => {
    max = Math.max(max, read());
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(max, read());
    },
  };
}

describe('scheduling', () => {
  // Three jobs per slot: each slot is refilled twice, which is where oversubscription and reordering would show.
  it('runs 6 jobs on 2 slots without ever oversubscribing, first come first served', async () => {
    const s = await simulatorFor(cleanups, { flavor: 'llama.cpp', slots: 2, script: [{ text: 'done', delayMs: 150 }] });
    const { app: a } = app(`endpoints:\n  gpu:\n    base_url: ${s.url}\n`);
    const queuedAtServer = sampleMax(() => s.stats.queued);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await a.jobs.start({ task: `job ${i}: say done` })).id);
    const records = await waitAll(a, ids);
    expect(queuedAtServer.stop()).toBe(0);
    expect(s.stats.peakInFlight).toBeLessThanOrEqual(2);
    expect(records.map((r) => r.status)).toEqual(Array(6).fill('succeeded'));
    const startOrder = [...records].sort((x, y) => Date.parse(x.started_at ?? '') - Date.parse(y.started_at ?? '')).map((r) => r.id);
    expect(startOrder).toEqual(ids);
  }, 240_000);

  it('spreads jobs over two endpoints serving the same model (2 and 1 slots), and queues the fourth', async () => {
    const big = await simulatorFor(cleanups, { flavor: 'llama.cpp', slots: 2, modelId: 'coder', script: [{ text: 'done', delayMs: 2500 }] });
    const small = await simulatorFor(cleanups, { flavor: 'llama.cpp', slots: 1, modelId: 'coder', script: [{ text: 'done', delayMs: 2500 }] });
    const { app: a } = app(`endpoints:\n  big:\n    base_url: ${big.url}\n  small:\n    base_url: ${small.url}\n`);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await a.jobs.start({ task: `job ${i}`, model: 'coder' })).id);
    const fourth = await a.jobs.get(ids[3]!);
    expect(fourth.status).toBe('queued');
    expect(fourth.queue).toEqual({ position: 1, waiting_for: 'a free slot for coder' });
    const records = await waitAll(a, ids);
    const firstThree = records.slice(0, 3).map((r) => r.model.endpoint).sort();
    expect(firstThree).toEqual(['big', 'big', 'small']);
    expect(records.every((r) => r.status === 'succeeded')).toBe(true);
    // It started only once one of the first three had finished.
    const firstEnd = Math.min(...records.slice(0, 3).map((r) => Date.parse(r.finished_at ?? '')));
    expect(Date.parse(records[3]!.started_at ?? '')).toBeGreaterThanOrEqual(firstEnd);
  }, 120_000);

  it('keeps a job pinned to a busy endpoint waiting even when another is free', async () => {
    const busy = await simulatorFor(cleanups, { flavor: 'llama.cpp', slots: 1, modelId: 'coder', script: [{ text: 'done', delayMs: 2000 }] });
    const idle = await simulatorFor(cleanups, { flavor: 'llama.cpp', slots: 1, modelId: 'coder', script: [{ text: 'done' }] });
    const { app: a } = app(`endpoints:\n  busy:\n    base_url: ${busy.url}\n  idle:\n    base_url: ${idle.url}\n`);
    const first = await a.jobs.start({ task: 'long one', endpoint: 'busy' });
    const pinned = await a.jobs.start({ task: 'pinned', endpoint: 'busy' });
    expect((await a.jobs.get(pinned.id)).status).toBe('queued');
    const [r1, r2] = await waitAll(a, [first.id, pinned.id]);
    expect(r2?.model.endpoint).toBe('busy');
    expect(Date.parse(r2?.started_at ?? '')).toBeGreaterThanOrEqual(Date.parse(r1?.finished_at ?? ''));
    expect(idle.requests.filter((r) => r.path === '/v1/messages')).toHaveLength(0);
  }, 120_000);

  it('queues a job for a model whose server is still loading, and runs it once loaded', async () => {
    // Loading until the test has seen the job queued: a loaded machine may take seconds to get there.
    const s = await simulatorFor(cleanups, { flavor: 'llama.cpp', loadingMs: 600_000, modelId: 'coder', script: [{ text: 'loaded' }] });
    const { app: a } = app(`endpoints:\n  gpu:\n    base_url: ${s.url}\ndefaults:\n  queue_grace_s: 30\n`);
    const started = await a.jobs.start({ task: 'say loaded', model: 'coder' });
    expect(started.status).toBe('queued');
    s.setLoading(0);
    expect(await a.jobs.wait(started.id, 60)).toMatchObject({ status: 'succeeded', result: 'loaded', model: { served: 'coder', endpoint: 'gpu' } });
  }, 60_000);

  it('cancels a queued job without ever starting it', async () => {
    const s = await simulatorFor(cleanups, { flavor: 'llama.cpp', slots: 1, script: [{ text: 'done', delayMs: 1500 }] });
    const { app: a } = app(`endpoints:\n  gpu:\n    base_url: ${s.url}\n`);
    const running = await a.jobs.start({ task: 'first' });
    const queued = await a.jobs.start({ task: 'second' });
    const cancelled = await a.jobs.cancel(queued.id);
    expect(cancelled).toMatchObject({ status: 'cancelled', error: 'cancelled on request before it started' });
    expect(cancelled.started_at).toBeUndefined();
    expect((await a.jobs.wait(running.id, 60)).status).toBe('succeeded');
    expect(s.requests.filter((r) => r.path === '/v1/messages')).toHaveLength(1);
  }, 60_000);

  it('fails queued jobs after the grace period (queue_grace_s, with outage_wait_s 0) when their model stops being served, naming model and host', async () => {
    const s = await simulatorFor(cleanups, { flavor: 'llama.cpp', slots: 1, modelId: 'coder', script: [{ text: 'done', delayMs: 1500 }] });
    const { app: a } = app(
      `endpoints:\n  gpu:\n    base_url: ${s.url}\nmodels:\n  coder:\n    notes: the coder\n    host: gpu-box\ndefaults:\n  queue_grace_s: 1\n  outage_wait_s: 0\n  probe_timeout_s: 0.5\n`,
    );
    const running = await a.jobs.start({ task: 'first', model: 'coder' });
    const waiting = await a.jobs.start({ task: 'second', model: 'coder' });
    expect(await until(() => s.stats.inFlight === 1, 60_000)).toBe(true); // the first job's request is at the server
    await s.setDown(true);
    const failed = await a.jobs.wait(waiting.id, 30);
    expect(failed).toMatchObject({ status: 'failed', error_code: 'model_unavailable' });
    expect(failed.started_at).toBeUndefined();
    // The record holds the facts, which the command line and the dashboard show a person as they are…
    expect(failed.error).toContain('coder is not running anywhere. Its host: gpu-box. Note: the coder');
    expect(failed.error).not.toMatch(MODEL_WORDS);
    expect(jobReport(failed)).toContain(`error: ${failed.error}`);
    expect(jobReport(failed)).not.toMatch(MODEL_WORDS);
    // …and the calling model reads them with its next step.
    expect(jobView(failed).error).toBe(`${failed.error} Relay this to the user; localagents never starts models itself.`);
    expect(jobSummary(failed)).toContain('Relay this to the user');
    // The running job's Claude Code keeps retrying the dead server; stop it.
    expect((await a.jobs.cancel(running.id)).status).toBe('cancelled');
  }, 60_000);

  it('places the second job of a working tree where the first ran, and its first request reuses the cached prefix', async () => {
    const a2 = await simulatorFor(cleanups, { flavor: 'llama.cpp', slots: 2, modelId: 'coder', script: [{ text: 'done' }] });
    const b3 = await simulatorFor(cleanups, { flavor: 'llama.cpp', slots: 3, modelId: 'coder', script: [{ text: 'done' }] });
    const { app: a } = app(`endpoints:\n  a:\n    base_url: ${a2.url}\n  b:\n    base_url: ${b3.url}\n`);
    const first = await a.jobs.wait((await a.jobs.start({ task: 'first look', endpoint: 'a' })).id, 60);
    expect(first.first_turn_cache_read_tokens).toBe(0);
    // b has more free slots, but a holds this tree's prompt prefix.
    const second = await a.jobs.wait((await a.jobs.start({ task: 'second look' })).id, 60);
    expect(second.model.endpoint).toBe('a');
    expect(second.first_turn_cache_read_tokens).toBeGreaterThan(5000);
  }, 60_000);
});
