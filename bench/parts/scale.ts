/**
 * Part 5: 16 scripted jobs at once on simulators with 4 slots in total
 * (two llama.cpp simulators × 2 slots, in a helper process). "queue": the
 * default admission (a job per free slot, the rest wait in localagents'
 * queue). "all at once": max_jobs 8 per endpoint, so all 16 Claude Code
 * processes start together and the backend queues their requests. Each run
 * gets a fresh server (for its peak RSS) and fresh simulators (for their peak
 * in-flight).
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { makeDirs, writeConfig } from '../../test/e2e/harness.js';
import type { SimulatorOptions, SimStats } from '../../test/sim/index.js';
import { forkHelper } from '../lib/child.js';
import { childrenOf, commandOf, cpuMicrosOf, memoryOf } from '../lib/proc.js';
import type { Table, Target } from '../lib/report.js';
import { removeDirs, startServer, structured } from '../lib/server.js';
import { formatSpread, median, spread } from '../lib/stats.js';
import type { SimInfo } from '../hosts/sim-host.js';

export const JOBS = 16;
const SLOTS_PER_SIM = 2;
/**
 * Backend speed while a slot is held: a fixed 100 ms per request plus 0.1 ms per
 * uncached prompt token (10k tokens/s prefill) and 10 ms per output token. The
 * simulator reuses each slot's KV prefix, so a slot that keeps serving one
 * session (the queue) prefills only the new turn, and one shared between
 * sessions pays for whatever prefix they do not share.
 */
const FIRST_TOKEN_MS = 100;
const PREFILL_MS_PER_TOKEN = 0.1;
const TOKEN_MS = 10;

type Mode = 'queue' | 'all at once';

interface RunResult {
  readonly wallS: number;
  /** Sum of each simulator's peakInFlight (requests holding a slot). */
  readonly peakInFlight: number;
  /** Most requests waiting for a slot at the backends at one time (sampled). */
  readonly peakQueued: number;
  readonly serverPeakRss: number;
  readonly serverCpuS: number;
  readonly claudePeakSum: number;
  readonly claudePeakEach: number;
  readonly claudeMaxAlive: number;
  readonly meanQueueS: number;
  readonly failed: number;
}

async function runOnce(mode: Mode): Promise<RunResult> {
  const simHost = forkHelper(resolve(import.meta.dirname, '..', 'hosts', 'sim-host.ts'));
  const script = [{ toolUse: { name: 'Write', input: { file_path: 'note.txt', content: 'hello\n' } } }, { text: 'done' }];
  const specs: SimulatorOptions[] = [0, 1].map(() => ({
    flavor: 'llama.cpp',
    slots: SLOTS_PER_SIM,
    modelId: 'qwen-bench',
    firstTokenDelayMs: FIRST_TOKEN_MS,
    prefillMsPerToken: PREFILL_MS_PER_TOKEN,
    tokenDelayMs: TOKEN_MS,
    script,
  }));
  const sims = await simHost.call<SimInfo[]>('start', specs);
  const dirs = makeDirs();
  const maxJobs = mode === 'all at once' ? `    max_jobs: ${JOBS / sims.length}\n` : '';
  writeConfig(dirs, `endpoints:\n${sims.map((s, i) => `  gpu${i}:\n    base_url: ${s.url}\n${maxJobs}`).join('')}`);
  const server = await startServer(dirs);
  const cwds = Array.from({ length: JOBS }, (_, i) => join(dirs.root, `job-${i}`));
  for (const c of cwds) mkdirSync(c);

  let peakQueued = 0;
  const claudePeak = new Map<number, number>();
  let claudePeakSum = 0;
  let claudeMaxAlive = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const load = await simHost.call<{ inFlight: number; queued: number }>('load');
      peakQueued = Math.max(peakQueued, load.queued);
      const claudes = childrenOf(server.pid).filter((pid) => commandOf(pid).includes('claude'));
      let total = 0;
      for (const pid of claudes) {
        const rss = memoryOf(pid)?.rss ?? 0;
        total += rss;
        claudePeak.set(pid, Math.max(claudePeak.get(pid) ?? 0, rss));
      }
      claudePeakSum = Math.max(claudePeakSum, total);
      claudeMaxAlive = Math.max(claudeMaxAlive, claudes.length);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();

  const cpu0 = cpuMicrosOf(server.pid) ?? 0;
  const t0 = performance.now();
  try {
    const started = await Promise.all(cwds.map((cwd, i) => server.call('run_agent', { task: `Write note.txt (job ${i}).`, model: 'qwen-bench', cwd, wait_s: 0 }).then(structured)));
    const done = await Promise.all(started.map((r) => server.call('wait_job', { job_id: r.id, timeout_s: 110 }).then(structured)));
    const wallS = (performance.now() - t0) / 1000;
    const serverCpuS = ((cpuMicrosOf(server.pid) ?? 0) - cpu0) / 1e6;
    sampling = false;
    await sampler;
    const stats = await simHost.call<SimStats[]>('stats');
    const queueS = done.map((r) => (Date.parse(String(r.started_at)) - Date.parse(String(r.created_at))) / 1000);
    return {
      wallS,
      peakInFlight: stats.reduce((n, s) => n + s.peakInFlight, 0),
      peakQueued,
      serverPeakRss: memoryOf(server.pid)?.peak ?? Number.NaN,
      serverCpuS,
      claudePeakSum,
      claudePeakEach: median([...claudePeak.values()]),
      claudeMaxAlive,
      meanQueueS: queueS.reduce((a, b) => a + b, 0) / queueS.length,
      failed: done.filter((r) => r.status !== 'succeeded').length,
    };
  } finally {
    sampling = false;
    await sampler;
    await server.close();
    await simHost.close();
    removeDirs(dirs);
  }
}

const MB = 1024 * 1024;

export async function measureScale(scale: number): Promise<{ tables: Table[]; targets: Target[]; notes: string[] }> {
  const rounds = Math.max(1, Math.round(2 * scale));
  const results = new Map<Mode, RunResult[]>([['queue', []], ['all at once', []]]);
  for (let r = 0; r < rounds; r++) {
    // ABBA: neither mode always runs first.
    const order: Mode[] = r % 2 === 0 ? ['queue', 'all at once'] : ['all at once', 'queue'];
    for (const mode of order) results.get(mode)?.push(await runOnce(mode));
  }
  const f = (mode: Mode, pick: (x: RunResult) => number, digits: number): string => formatSpread(spread((results.get(mode) ?? []).map(pick)), digits);
  const modes: Mode[] = ['queue', 'all at once'];
  const queue = results.get('queue') ?? [];
  const allAtOnce = results.get('all at once') ?? [];
  const speedup = spread(queue.map((q, i) => (allAtOnce[i]?.wallS ?? Number.NaN) / q.wallS));
  const rss = spread([...queue, ...allAtOnce].map((x) => x.serverPeakRss / MB));
  return {
    tables: [
      {
        title: `${JOBS} jobs (Write, then answer) on 2 llama.cpp simulators × ${SLOTS_PER_SIM} slots (${FIRST_TOKEN_MS} ms + ${PREFILL_MS_PER_TOKEN} ms per uncached prompt token + ${TOKEN_MS} ms per output token), ${rounds} run(s) each, ABBA order`,
        columns: ['admission', 'wall s', 'jobs/min', 'peak in-flight', 'peak queued at backend', 'mean queue wait s', 'server peak RSS MB', 'server CPU s', 'claude alive max', 'claude RSS peak sum MB', 'claude RSS each MB', 'failed'],
        rows: modes.map((m) => [
          m,
          f(m, (x) => x.wallS, 1),
          f(m, (x) => (JOBS / x.wallS) * 60, 1),
          f(m, (x) => x.peakInFlight, 0),
          f(m, (x) => x.peakQueued, 0),
          f(m, (x) => x.meanQueueS, 1),
          f(m, (x) => x.serverPeakRss / MB, 0),
          f(m, (x) => x.serverCpuS, 1),
          f(m, (x) => x.claudeMaxAlive, 0),
          f(m, (x) => x.claudePeakSum / MB, 0),
          f(m, (x) => x.claudePeakEach / MB, 0),
          f(m, (x) => x.failed, 0),
        ]),
      },
    ],
    targets: [
      { what: 'server peak RSS (VmHWM of dist/main.cjs) during 16 jobs', measured: formatSpread(rss, 0, ' MB'), target: '≤ 200 MB', met: rss.max <= 200 },
      { what: 'throughput, queue vs all at once (wall all-at-once / wall queue; > 1: the queue is faster)', measured: formatSpread(speedup, 2), target: 'report', met: undefined },
    ],
    notes: ['Claude Code processes are children of the server; their RSS is sampled every 50 ms from /proc (VmRSS), apart from the server\'s own VmHWM.'],
  };
}
