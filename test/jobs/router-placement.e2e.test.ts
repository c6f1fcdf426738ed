/**
 * Jobs on a router-mode llama-server (simulated: test/sim/llama-router.ts), with real Claude Code sessions: a job
 * never makes the router evict a model another running job uses; it waits, and says what for; list_models shows
 * each model's state, window and what a job on it would cost, and loads nothing.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { silentLogger } from '../../src/log.js';
import { formatModelList } from '../../src/registry/format-model-list.js';
import { makeRepo } from '../helpers/git-repo.js';
import { until } from '../helpers/processes.js';
import { cleanupsAfterEach, simulatorFor } from '../helpers/cleanups.js';

const cleanups = cleanupsAfterEach();

function app(configYaml: string): App {
  const root = mkdtempSync(join(tmpdir(), 'la-router-'));
  writeFileSync(join(root, 'models.yaml'), configYaml);
  const a = createApp({
    configPath: join(root, 'models.yaml'),
    cwd: makeRepo(),
    env: { PATH: process.env.PATH, HOME: root, CLAUDE_CONFIG_DIR: join(root, 'claude') },
    log: silentLogger,
    stateDir: join(root, 'state'),
  });
  cleanups.push(() => a.close());
  return a;
}

const WORDS = { serverCwd: 'cwd', noEndpoints: 'none', nextSteps: '', agents: 'agents:' };

describe('a router-mode server', () => {
  it('list_models shows every model with its state, window and cost, and loads nothing', async () => {
    const s = await simulatorFor(cleanups, { flavor: 'llama.cpp', router: { models: [{ id: 'qwen-small', loaded: true }, { id: 'devstral' }], modelsMax: 1, ctxSize: 32768, parallel: 1 } });
    const a = app(`endpoints:\n  gpu-box:\n    base_url: ${s.url}\n`);
    const text = formatModelList(await a.listModels(), WORDS);
    expect(text).toContain('router: loads models on demand and holds up to 1 model at once');
    expect(text).toContain('qwen-small  [loaded]  context 32k (llama.cpp /v1/models meta.n_ctx (per slot))');
    expect(text).toContain("devstral  [unloaded]  context 32k (llama.cpp router's arguments for the model (--ctx-size / --parallel))");
    expect(text).toContain('a job loads devstral first, evicting the least recently used idle model of qwen-small');
    expect(s.routerEvents).toEqual([]);
  });

  it('with --models-max 1, two jobs on two models run one after the other: one load each, the second saying why it waited', async () => {
    const s = await simulatorFor(cleanups, {
      flavor: 'llama.cpp',
      router: { models: [{ id: 'qwen-small' }, { id: 'devstral' }], modelsMax: 1, ctxSize: 131072, parallel: 1, loadMs: 300 },
      // Several turns with a pause between them: a router sees the model idle between turns.
      script: [
        { text: 'one', toolUse: { name: 'Bash', input: { command: 'true' } }, delayMs: 300 },
        { text: 'two', toolUse: { name: 'Bash', input: { command: 'true' } }, delayMs: 300 },
        { text: 'done' },
      ],
    });
    const a = app(`endpoints:\n  gpu-box:\n    base_url: ${s.url}\n`);
    const first = await a.jobs.start({ task: 'long job', model: 'qwen-small' });
    expect(await until(async () => (await a.jobs.get(first.id)).status === 'running', 30_000)).toBe(true);
    const second = await a.jobs.start({ task: 'short job', model: 'devstral' });
    const waiting = await a.jobs.get(second.id);
    expect(waiting.status).toBe('queued');
    expect(waiting.queue?.waiting_for).toBe(`waits for gpu-box: it holds 1 model at a time and qwen-small is busy with job ${first.id}`);
    const [r1, r2] = await Promise.all([a.jobs.wait(first.id, 120), a.jobs.wait(second.id, 120)]);
    expect([r1?.status, r2?.status], `${r1?.error} | ${r2?.error}`).toEqual(['succeeded', 'succeeded']);
    expect(Date.parse(r2?.started_at ?? '')).toBeGreaterThanOrEqual(Date.parse(r1?.finished_at ?? ''));
    expect(r2?.model.endpoint_reason).toContain(`it waited in the queue while gpu-box held 1 model at a time and qwen-small was busy with job ${first.id}`);
    // One load each, one eviction (the swap), never back and forth.
    expect(s.routerEvents.map((e) => `${e.event} ${e.model}`)).toEqual(['loading qwen-small', 'loaded qwen-small', 'evicted qwen-small', 'loading devstral', 'loaded devstral']);
    // Each session was told the loaded model's own window, read after its load.
    expect([r1?.model.context, r1?.model.context_source]).toEqual([131072, 'llama.cpp /props n_ctx (per slot)']);
  }, 180_000);

  it('a job on an unloaded model shows the load while it runs; a damaged model ends its job failed with the router’s words', async () => {
    const s = await simulatorFor(cleanups, {
      flavor: 'llama.cpp',
      router: { models: [{ id: 'devstral' }, { id: 'damaged', broken: true }], ctxSize: 131072, parallel: 1, loadMs: 1500 },
      script: [{ text: 'done' }],
    });
    const a = app(`endpoints:\n  gpu-box:\n    base_url: ${s.url}\n`);
    const job = await a.jobs.start({ task: 'say done', model: 'devstral' });
    expect(await until(async () => (await a.jobs.get(job.id)).queue?.waiting_for.startsWith('loading devstral on gpu-box, ') === true, 30_000)).toBe(true);
    expect(await a.jobs.wait(job.id, 60)).toMatchObject({ status: 'succeeded', model: { context: 131072, context_source: 'llama.cpp /props n_ctx (per slot)' } });
    const bad = await a.jobs.start({ task: 'say done', model: 'damaged' });
    const failed = await a.jobs.wait(bad.id, 60);
    expect([failed.status, failed.error]).toEqual(['failed', 'the router could not load damaged: gpu-box answered HTTP 500: model name=damaged failed to load']);
    // The session never started: the router was not sent a single message for it.
    expect(s.requests.filter((r) => r.path === '/v1/messages' && r.bodyText.includes('"damaged"'))).toHaveLength(0);
  }, 120_000);

  it('share_models: true lets the second job evict the first one’s model (the user asked for swaps)', async () => {
    const s = await simulatorFor(cleanups, {
      flavor: 'llama.cpp',
      router: { models: [{ id: 'qwen-small' }, { id: 'devstral' }], modelsMax: 1, ctxSize: 131072, parallel: 1 },
      script: [{ text: 'one', toolUse: { name: 'Bash', input: { command: 'true' } }, delayMs: 500 }, { text: 'done' }],
    });
    const a = app(`endpoints:\n  gpu-box:\n    base_url: ${s.url}\n    share_models: true\n`);
    const first = await a.jobs.start({ task: 'long job', model: 'qwen-small' });
    expect(await until(async () => (await a.jobs.get(first.id)).status === 'running', 30_000)).toBe(true);
    const second = await a.jobs.start({ task: 'short job', model: 'devstral' });
    // Not held back for the busy model: it goes straight to loading its own (which evicts the first's).
    const waiting = (await a.jobs.get(second.id)).queue?.waiting_for ?? '';
    expect(waiting === '' || waiting.startsWith('loading devstral on gpu-box')).toBe(true);
    expect(waiting).not.toMatch(/busy with job/);
    await Promise.all([a.jobs.wait(first.id, 120), a.jobs.wait(second.id, 120)]);
  }, 180_000);
});
