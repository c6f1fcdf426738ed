/**
 * Two localagents servers (two Claude Code windows) on the same state
 * directory and the same models.yaml: no record is overwritten, each sees the
 * other's jobs, and registrations from both at once all land in a valid
 * models.local.yaml. Real processes (the built binary over stdio).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { connect, makeDirs, ok, writeConfig, type Connected, type E2EDirs } from '../e2e/harness.js';

describe('two servers sharing one state directory and config', () => {
  let dirs: E2EDirs;
  let sim: Simulator;
  let a: Connected;
  let b: Connected;

  beforeAll(async () => {
    dirs = makeDirs();
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, slots: 4 });
    writeConfig(dirs, `# hand-written; never rewritten\nendpoints:\n  gpu:\n    base_url: ${sim.url}\n    max_jobs: 4\n`);
    [a, b] = await Promise.all([connect(dirs), connect(dirs)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.allSettled([a?.close(), b?.close()]);
    await sim?.close();
  });

  it('jobs from both land in separate records; each server reports the other\'s running job as running, not interrupted', async () => {
    sim.setScript((req) => ({ text: `answer to ${/Job from window (\w+)\./.exec(req.lastUserText)?.[1] ?? '?'}`, delayMs: 1500 }));
    const started = await Promise.all([
      a.call('run_agent', { wait_s: 0, task: 'Job from window A1.' }),
      b.call('run_agent', { wait_s: 0, task: 'Job from window B1.' }),
      a.call('run_agent', { wait_s: 0, task: 'Job from window A2.' }),
      b.call('run_agent', { wait_s: 0, task: 'Job from window B2.' }),
    ]);
    const ids = started.map((r) => String(ok(r).id));
    expect(new Set(ids).size).toBe(4);
    // B asked about A's job while it runs: the owner is alive, so it is not mistaken for an orphan.
    const seenByB = ok(await b.call('jobs', { job_id: ids[0] }));
    expect(['queued', 'running']).toContain(seenByB.status);

    const finished = await Promise.all(ids.map((id, i) => (i % 2 === 0 ? a : b).call('wait_job', { job_id: id, timeout_s: 60 })));
    const windows = ['A1', 'B1', 'A2', 'B2'];
    finished.forEach((r, i) => expect(ok(r)).toMatchObject({ status: 'succeeded', result: `answer to ${windows[i]}` }));
    for (const [i, id] of ids.entries()) {
      const onDisk = JSON.parse(readFileSync(join(dirs.state, 'jobs', id, 'job.json'), 'utf8')) as { status: string; task_preview: string };
      expect(onDisk).toMatchObject({ status: 'succeeded', task_preview: `Job from window ${windows[i]}.` });
    }
    for (const server of [a, b]) {
      const listed = ok(await server.call('jobs', {})).jobs as Array<{ id: string; status: string }>;
      expect(listed.filter((j) => ids.includes(j.id)).map((j) => j.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    }
    // No temp files left behind by the atomic writes.
    for (const id of ids) expect(readdirSync(join(dirs.state, 'jobs', id)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('register_endpoint and register_model from both at once: every entry lands, the file loads, models.yaml is untouched', async () => {
    const handWritten = readFileSync(dirs.config, 'utf8');
    const calls: Array<Promise<unknown>> = [];
    for (let i = 0; i < 4; i++) {
      calls.push(a.call('register_endpoint', { name: `a${i}`, base_url: sim.url }).then(ok));
      calls.push(b.call('register_endpoint', { name: `b${i}`, base_url: sim.url }).then(ok));
      calls.push(a.call('register_model', { name: `model-a${i}`, notes: `from A ${i}` }).then(ok));
      calls.push(b.call('register_model', { name: `model-b${i}`, notes: `from B ${i}` }).then(ok));
    }
    await Promise.all(calls);

    const sidecar = parse(readFileSync(join(dirs.root, 'models.local.yaml'), 'utf8')) as { endpoints: Record<string, unknown>; models: Record<string, unknown> };
    expect(Object.keys(sidecar.endpoints).sort()).toEqual(['a0', 'a1', 'a2', 'a3', 'b0', 'b1', 'b2', 'b3']);
    expect(Object.keys(sidecar.models).sort()).toEqual(['model-a0', 'model-a1', 'model-a2', 'model-a3', 'model-b0', 'model-b1', 'model-b2', 'model-b3']);
    const merged = await loadConfig({ configPath: dirs.config, cwd: dirs.root, env: {} });
    expect(merged.endpoints.map((e) => e.name).sort()).toEqual(['a0', 'a1', 'a2', 'a3', 'b0', 'b1', 'b2', 'b3', 'gpu']);
    expect(readFileSync(dirs.config, 'utf8')).toBe(handWritten);
    expect(readdirSync(dirs.root).filter((f) => f.endsWith('.tmp') || f.endsWith('.lock'))).toEqual([]);
  });
});
