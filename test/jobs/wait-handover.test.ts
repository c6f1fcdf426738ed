/**
 * Issue 14: wait_job on a queued job returned at once with status `queued` right
 * as the slot it waited for was freed. The window: the job had left the queue but
 * was not yet among the running jobs (its `running` record was being written, or
 * its worktree made), so the wait found neither and answered from disk. Here the
 * write of the `running` record is held open, deterministically, while the wait starts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProber } from '../../src/backends/probe.js';
import { createConfigLoader } from '../../src/config/cached-loader.js';
import { createJobManager, type JobManager } from '../../src/jobs/queue/job-manager.js';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { createJobStore, type JobStore } from '../../src/jobs/record/job-store.js';
import { silentLogger } from '../../src/log.js';
import { createShimServer } from '../../src/shim/server.js';
import { makeRepo } from '../helpers/git-repo.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';

const cleanups = cleanupsAfterEach();

/** A store whose first write of `jobId`'s `running` record waits until `open()` is called. */
function heldStore(store: JobStore): { store: JobStore; hold(jobId: string): Promise<void>; open(): void } {
  let target: string | undefined;
  let reached!: () => void;
  const reachedP = new Promise<void>((r) => {
    reached = r;
  });
  let open!: () => void;
  const gate = new Promise<void>((r) => {
    open = r;
  });
  const wrapped: JobStore = {
    ...store,
    async save(record: JobRecord) {
      if (record.id === target && record.status === 'running') {
        target = undefined;
        reached();
        await gate;
      }
      return store.save(record);
    },
  };
  return {
    store: wrapped,
    hold(jobId) {
      target = jobId;
      return reachedP;
    },
    open,
  };
}

describe('wait_job on a queued job as its slot frees', () => {
  let sim: Simulator;
  let jobs: JobManager;

  it('waits through the hand-over from queued to running and returns only when the job has finished', async () => {
    sim = await startSimulator({ flavor: 'llama.cpp', slots: 1 });
    cleanups.push(() => sim.close());
    const root = mkdtempSync(join(tmpdir(), 'la-handover-'));
    writeFileSync(join(root, 'models.yaml'), `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
    const env = { PATH: process.env.PATH, HOME: root, CLAUDE_CONFIG_DIR: join(root, 'claude') };
    const stateDir = join(root, 'state');
    const held = heldStore(createJobStore(stateDir));
    const prober = createProber();
    const shim = createShimServer(silentLogger);
    jobs = createJobManager({
      loadConfig: createConfigLoader({ configPath: join(root, 'models.yaml'), cwd: root, env }),
      prober,
      shim,
      store: held.store,
      stateDir,
      log: silentLogger,
      parentEnv: env,
      defaultCwd: makeRepo(),
    });
    cleanups.push(async () => {
      held.open();
      await jobs.close();
      await shim.close();
      await prober.close();
    });
    // The first job holds the one slot for a moment; the second queues behind it.
    sim.setScript((req) => (req.lastUserText.includes('ALPHA') ? { text: 'first done', delayMs: 1500 } : { text: 'second done' }));
    const first = await jobs.start({ task: 'Job ALPHA.' });
    const second = await jobs.start({ task: 'Job BETA.' });
    expect(first.status).toBe('running');
    expect(second.status).toBe('queued');

    // The slot frees; the second job is caught between the queue and running.
    await held.hold(second.id);
    // A wait begun now cannot see the job finish before the hand-over is let go: an answer from a wait that
    // ended early carries the status of the hand-over, never 'succeeded'.
    const waited = jobs.wait(second.id, 100);
    held.open();
    expect(await waited).toMatchObject({ id: second.id, status: 'succeeded', result: 'second done' });
  }, 120_000);
});
