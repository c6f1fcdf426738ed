/**
 * Part 6b: cost growth with the number of jobs on record (10 → 10,000 job
 * folders in a state dir, written through the real JobStore). Times
 * list_jobs's service call (app.jobs.list(true)), list_models and the
 * localagents part of a job start (run_agent's service call until the job is
 * placed, with a stand-in Claude binary that exits at once), and breaks the
 * 10,000 list down into its steps.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { newJobId } from '../../src/jobs/record/job-id.js';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { JOB_RECORD_SHAPE } from '../../src/jobs/record/job-record-shape.js';
import { checkShape } from '../../src/json-shape.js';
import { createJobStore, type JobStore } from '../../src/jobs/record/job-store.js';
import type { SimulatorOptions } from '../../test/sim/index.js';
import { forkHelper } from '../lib/child.js';
import { startInProcess, type InProcess } from '../lib/in-process.js';
import type { Table, Target } from '../lib/report.js';
import { formatSpread, spread, type Spread } from '../lib/stats.js';
import type { SimInfo } from '../hosts/sim-host.js';

export const RECORD_LADDER = [10, 100, 1000, 10_000] as const;

/** A finished job as the server leaves it: ~1.5 kB of JSON. */
export function finishedRecord(i: number): JobRecord {
  const at = new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString();
  return {
    id: newJobId(new Date(Date.UTC(2026, 10, 1) + i * 1000)),
    status: i % 10 === 0 ? 'failed' : 'succeeded',
    created_at: at,
    started_at: at,
    finished_at: at,
    task_preview: `Add a --json flag to the report command and a test for it (bench job ${i}).`,
    model: { requested: 'qwen', served: 'unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL', endpoint: 'gpu', context: 131072, context_source: 'llama.cpp /props n_ctx' },
    cwd: '/home/dev/project',
    work_dir: '/home/dev/project',
    isolation: 'none',
    permission_mode: 'acceptEdits',
    max_turns: 200,
    timeout_s: 1800,
    allowed_tools: ['Read', 'Write', 'Edit', 'MultiEdit', 'Glob', 'Grep', 'Bash', 'TodoWrite', 'NotebookEdit'],
    disallowed_tools: ['Agent', 'Task'],
    session_id: '0f8e2c1a-6b7d-4c3e-9a1f-2d3c4b5a6e7f',
    num_turns: 12,
    tool_calls: 11,
    last_activity: { at, what: 'tool: Bash npm test' },
    files_touched: ['/home/dev/project/src/report.ts', '/home/dev/project/test/report.test.ts'],
    usage: { input_tokens: 48_211, output_tokens: 3_904, cache_read_input_tokens: 402_117 },
    first_turn_cache_read_tokens: 11_020,
    requests: 12,
    result: 'Added --json to report (src/report.ts) with a test (test/report.test.ts); npm test passes (41 tests).',
    error: i % 10 === 0 ? 'Claude Code ended with an error: max turns reached' : undefined,
    warnings: [],
    owner_pid: 999_999,
  };
}

async function fill(store: JobStore, from: number, to: number): Promise<void> {
  const batch = 64;
  for (let i = from; i < to; i += batch) {
    await Promise.all(Array.from({ length: Math.min(batch, to - i) }, (_, k) => store.create(finishedRecord(i + k), 'bench task\n')));
  }
}

async function timed(n: number, f: () => Promise<unknown>): Promise<Spread> {
  await f(); // warm-up
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await f();
    out.push(performance.now() - t0);
  }
  return spread(out);
}

/** jobs.start until it returns the placed job; the stand-in session failing afterwards is waited for outside the timing. */
async function timedStarts(n: number, app: InProcess): Promise<Spread> {
  const out: number[] = [];
  for (let i = -1; i < n; i++) {
    const t0 = performance.now();
    const record = await app.app.jobs.start({ task: 'bench', cwd: app.dir });
    if (i >= 0) out.push(performance.now() - t0);
    await app.app.jobs.wait(record.id, 30);
  }
  return spread(out);
}

/** The steps of JobStore.list at the current size, timed one by one. */
async function listBreakdown(root: string): Promise<string[]> {
  const isId = (n: string): boolean => /^\d{8}-\d{6}-[0-9a-z]{12}$/.test(n);
  // First, before the big arrays below exist: what a `limit` on list_jobs would cost. Ids sort by creation time.
  const l0 = performance.now();
  const newest = (await readdir(root)).filter(isId).sort().slice(-100);
  await Promise.all(newest.map(async (n) => checkShape(JSON.parse(await readFile(join(root, n, 'job.json'), 'utf8')), JOB_RECORD_SHAPE)));
  const limited = performance.now() - l0;
  const t0 = performance.now();
  const names = (await readdir(root)).filter(isId).sort();
  const t1 = performance.now();
  const texts = await Promise.all(names.map((n) => readFile(join(root, n, 'job.json'), 'utf8')));
  const t2 = performance.now();
  const values = texts.map((t) => JSON.parse(t) as unknown);
  const t3 = performance.now();
  for (const v of values) checkShape(v, JOB_RECORD_SHAPE);
  const t4 = performance.now();
  return [
    `readdir+sort ${(t1 - t0).toFixed(0)} ms`,
    `read ${names.length} job.json ${(t2 - t1).toFixed(0)} ms`,
    `JSON.parse ${(t3 - t2).toFixed(0)} ms`,
    `shape check ${(t4 - t3).toFixed(0)} ms`,
    `(for comparison: readdir + read/parse/check only the newest 100: ${limited.toFixed(0)} ms)`,
  ];
}

export async function measureJobRecords(scale: number): Promise<{ tables: Table[]; targets: Target[]; notes: string[] }> {
  const n = Math.max(3, Math.round(5 * scale));
  const dir = mkdtempSync(join(tmpdir(), 'la-bench-records-'));
  const fakeClaude = join(dir, 'fake-claude');
  writeFileSync(fakeClaude, '#!/bin/sh\nexit 1\n');
  chmodSync(fakeClaude, 0o755);
  const simHost = forkHelper(resolve(import.meta.dirname, '..', 'hosts', 'sim-host.ts'));
  const specs: SimulatorOptions[] = [{ flavor: 'llama.cpp', slots: 4 }];
  const [sim] = await simHost.call<SimInfo[]>('start', specs);
  const stateDir = join(dir, 'state');
  const app = await startInProcess(`endpoints:\n  gpu:\n    base_url: ${sim?.url ?? ''}\n`, { stateDir, claudeExecutable: fakeClaude });
  const store = createJobStore(stateDir);
  const rows: string[][] = [];
  let listAt10k: Spread | undefined;
  let breakdown: string[] = [];
  try {
    let have = 0;
    for (const size of RECORD_LADDER) {
      await fill(store, have, size);
      have = size;
      const list = await timed(n, () => app.app.jobs.list(true));
      const models = await timed(n, () => app.call('list_models'));
      const start = await timedStarts(n, app);
      have += n + 1; // the started jobs are on record too
      rows.push([String(size), formatSpread(list, 1), formatSpread(models, 1), formatSpread(start, 1)]);
      if (size === 10_000) {
        listAt10k = list;
        breakdown = await listBreakdown(store.root);
      }
    }
  } finally {
    await app.close();
    await simHost.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    tables: [
      {
        title: `service calls by jobs on record (finished jobs, ~1.5 kB job.json each), ms, ${n} calls each (median (min–max))`,
        columns: ['jobs on record', 'jobs.list(true)', 'list_models', 'jobs.start (call → job placed)'],
        rows,
      },
    ],
    targets: listAt10k === undefined ? [] : [{ what: 'app.jobs.list(true) at 10,000 jobs', measured: formatSpread(listAt10k, 0, ' ms'), target: '< 100 ms', met: listAt10k.median < 100 }],
    notes: [`list at 10,000, step by step (warm page cache): ${breakdown.join(', ')}`],
  };
}
