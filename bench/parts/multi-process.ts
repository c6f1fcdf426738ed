/**
 * Part 7: several localagents processes (Claude Code windows) sharing one state
 * directory and one GPU: N servers × M jobs on S slots, against one server with
 * the same N × M jobs. The simulator offers 2 × S slots while models.yaml says
 * `max_jobs: S`, so the backend would accept overbooking: only the shared slot
 * board keeps the peak at S. Jobs are submitted one at a time, round-robin over
 * the servers, so "submit order" is one total order; an inversion is a pair of
 * jobs where the later-submitted one started first.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { makeDirs, writeConfig } from '../../test/e2e/harness.js';
import type { SimulatorOptions, SimStats } from '../../test/sim/index.js';
import { forkHelper } from '../lib/child.js';
import type { Table, Target } from '../lib/report.js';
import { removeDirs, startServer, structured, type BenchServer } from '../lib/server.js';
import { formatSpread, spread } from '../lib/stats.js';
import type { SimInfo } from '../hosts/sim-host.js';

const PROCESSES = 3;
const SLOTS = 4;
/** Backend speed while a slot is held, as in part 5. */
const FIRST_TOKEN_MS = 100;
const PREFILL_MS_PER_TOKEN = 0.1;
const TOKEN_MS = 10;

type Mode = `${number} processes` | '1 process';

interface RunResult {
  readonly wallS: number;
  readonly peakInFlight: number;
  readonly inversions: number;
  /** Largest lateness: how long after an earlier-submitted job's start a later one started before it (0: none). */
  readonly worstInversionMs: number;
  readonly failed: number;
}

async function runOnce(processes: number, jobs: number): Promise<RunResult> {
  const simHost = forkHelper(resolve(import.meta.dirname, '..', 'hosts', 'sim-host.ts'));
  const spec: SimulatorOptions = {
    flavor: 'llama.cpp',
    slots: SLOTS * 2,
    modelId: 'qwen-bench',
    firstTokenDelayMs: FIRST_TOKEN_MS,
    prefillMsPerToken: PREFILL_MS_PER_TOKEN,
    tokenDelayMs: TOKEN_MS,
    script: [{ toolUse: { name: 'Write', input: { file_path: 'note.txt', content: 'hello\n' } } }, { text: 'done' }],
  };
  const [sim] = await simHost.call<SimInfo[]>('start', [spec]);
  const dirs = makeDirs();
  writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim!.url}\n    max_jobs: ${SLOTS}\n`);
  const servers: BenchServer[] = [];
  try {
    servers.push(...(await Promise.all(Array.from({ length: processes }, () => startServer(dirs)))));
    const cwds = Array.from({ length: jobs }, (_, i) => join(dirs.root, `job-${i}`));
    for (const c of cwds) mkdirSync(c);
    const t0 = performance.now();
    const ids: string[] = [];
    for (const [i, cwd] of cwds.entries()) {
      const started = structured(await servers[i % processes]!.call('run_agent', { task: `Write note.txt (job ${i}).`, model: 'qwen-bench', cwd, wait_s: 0 }));
      ids.push(String(started.id));
    }
    const done = await Promise.all(
      ids.map(async (id, i) => {
        for (;;) {
          const r = structured(await servers[i % processes]!.call('wait_job', { job_id: id, timeout_s: 110 }));
          if (r.status !== 'queued' && r.status !== 'running') return r;
        }
      }),
    );
    const wallS = (performance.now() - t0) / 1000;
    const stats = await simHost.call<SimStats[]>('stats');
    const starts = done.map((r) => Date.parse(String(r.started_at)));
    let inversions = 0;
    let worst = 0;
    for (let j = 0; j < starts.length; j++) {
      for (let i = 0; i < j; i++) {
        if (starts[j]! < starts[i]!) {
          inversions++;
          worst = Math.max(worst, starts[i]! - starts[j]!);
        }
      }
    }
    return { wallS, peakInFlight: stats[0]?.peakInFlight ?? Number.NaN, inversions, worstInversionMs: worst, failed: done.filter((r) => r.status !== 'succeeded').length };
  } finally {
    await Promise.allSettled(servers.map((s) => s.close()));
    await simHost.close();
    removeDirs(dirs);
  }
}

export async function measureMultiProcess(scale: number): Promise<{ tables: Table[]; targets: Target[]; notes: string[] }> {
  const perProcess = Math.max(2, Math.round(4 * scale));
  const jobs = PROCESSES * perProcess;
  const rounds = Math.max(1, Math.round(2 * scale));
  const many: Mode = `${PROCESSES} processes`;
  const results = new Map<Mode, RunResult[]>([[many, []], ['1 process', []]]);
  for (let r = 0; r < rounds; r++) {
    // ABBA: neither variant always runs first.
    const order: Mode[] = r % 2 === 0 ? [many, '1 process'] : ['1 process', many];
    for (const mode of order) results.get(mode)?.push(await runOnce(mode === many ? PROCESSES : 1, jobs));
  }
  const modes: Mode[] = [many, '1 process'];
  const f = (mode: Mode, pick: (x: RunResult) => number, digits: number): string => formatSpread(spread((results.get(mode) ?? []).map(pick)), digits);
  const manyRuns = results.get(many) ?? [];
  const oneRuns = results.get('1 process') ?? [];
  const peak = spread(manyRuns.map((x) => x.peakInFlight));
  const inversions = spread(manyRuns.map((x) => x.inversions));
  const ratio = spread(manyRuns.map((x, i) => x.wallS / (oneRuns[i]?.wallS ?? Number.NaN)));
  return {
    tables: [
      {
        title: `${jobs} jobs (Write, then answer) on S = ${SLOTS} slots (max_jobs ${SLOTS}; the simulator would take ${SLOTS * 2}), submitted one at a time round-robin, ${rounds} run(s) each, ABBA order`,
        columns: ['variant', 'wall s', 'jobs/min', `peak in flight (S = ${SLOTS})`, 'start-order inversions', 'worst inversion ms', 'failed'],
        rows: modes.map((m) => [
          m === many ? `${PROCESSES} servers × ${perProcess} jobs` : `1 server × ${jobs} jobs`,
          f(m, (x) => x.wallS, 1),
          f(m, (x) => (jobs / x.wallS) * 60, 1),
          f(m, (x) => x.peakInFlight, 0),
          f(m, (x) => x.inversions, 0),
          f(m, (x) => x.worstInversionMs, 0),
          f(m, (x) => x.failed, 0),
        ]),
      },
    ],
    targets: [
      { what: `peak requests in flight at the backend, ${PROCESSES} processes sharing ${SLOTS} slots`, measured: formatSpread(peak, 0), target: `≤ ${SLOTS}`, met: peak.max <= SLOTS },
      { what: 'start-order inversions across processes (later-submitted job started first)', measured: formatSpread(inversions, 0), target: '0', met: inversions.max === 0 },
      { what: `wall time, ${PROCESSES} processes / 1 process with the same jobs`, measured: formatSpread(ratio, 2), target: 'report (≈ 1: sharing costs nothing)', met: undefined },
    ],
    notes: [`Each run starts fresh servers, a fresh state directory and a fresh simulator; the ${PROCESSES} servers place through the slot board in the state directory (src/coord/slot-board.ts).`],
  };
}
