/**
 * The record survives its server: a server SIGKILLed mid-job leaves the job
 * `interrupted` for the next server process, and resume_job continues the same
 * Claude Code session.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../sim/index.js';
import { connect, makeDirs, ok, writeConfig, type E2EDirs } from './harness.js';
import { until } from '../helpers/processes.js';

describe('server killed mid-job', () => {
  let dirs: E2EDirs;
  let sim: Simulator;

  beforeAll(async () => {
    dirs = makeDirs();
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, slots: 1 });
    writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('reports the job interrupted after a restart, and resume_job completes it in the same session', async () => {
    // First turn writes a file; the second request hangs until the server is killed.
    sim.setScript((req) =>
      req.assistantTurns === 0
        ? { toolUse: { name: 'Write', input: { file_path: join(dirs.repo, 'part1.txt'), content: 'one\n' } } }
        : req.lastUserText.includes('continue')
          ? { text: 'Resumed and finished.' }
          : { text: 'stuck', delayMs: 600_000 },
    );
    const first = await connect(dirs);
    const started = ok(await first.call('run_agent', { wait_s: 0, task: 'Write part1.txt, then wait.' }));
    const jobId = String(started.id);
    const recordPath = join(dirs.state, 'jobs', jobId, 'job.json');
    const read = (): { tool_calls: number; session_id?: string } => JSON.parse(readFileSync(recordPath, 'utf8')) as { tool_calls: number; session_id?: string };
    expect(await until(() => read().tool_calls >= 1 && read().session_id !== undefined && sim.stats.inFlight > 0, 60_000, 100), JSON.stringify(sim.stats)).toBe(true);
    const pid = first.transport.pid;
    expect(pid).toBeTypeOf('number');
    process.kill(pid!, 'SIGKILL');
    await first.close().catch(() => undefined);

    const second = await connect(dirs);
    try {
      const listed = ok(await second.call('jobs', {}));
      const job = (listed.jobs as Array<{ id: string; status: string }>).find((j) => j.id === jobId);
      expect(job?.status).toBe('interrupted');
      const status = ok(await second.call('jobs', { job_id: jobId }));
      expect(String(status.error)).toContain(`run_agent(resume_job="${jobId}")`);
      const sessionId = String(status.session_id);

      const resumed = ok(await second.call('run_agent', { task: 'Please continue where you stopped.', resume_job: jobId, wait_s: 100 }));
      expect(resumed).toMatchObject({ status: 'succeeded', result: 'Resumed and finished.', resumed_from: jobId, session_id: sessionId });
      // The resumed request replays the earlier conversation: the Write is in its history.
      const last = sim.requests.filter((r) => r.path === '/v1/messages').at(-1);
      expect(last?.bodyText).toContain('part1.txt');
    } finally {
      await second.close();
    }
    // Two cold Claude Code starts; on a loaded 2-core CI machine one has taken over 15 s.
  }, 180_000);
});
