/**
 * `localagents usage` over a state directory of real job records: jobs run by the
 * real Claude Code against two simulators, from two MCP server processes and one
 * `localagents run`; then two copied to earlier dates, one record damaged and one
 * requests.jsonl given a bad line and a half-written one. Every column of every
 * grouping is checked against sums this test computes itself from the files.
 * The first report writes the usage index; the later ones read it, and are
 * checked against reports without it, with it damaged, and after another
 * process appended caller lines to a job that had ended. The official MCP client sends no
 * tool_use id, so every job's caller cost is unknown and says why (test/usage/caller-cost.e2e.test.ts
 * measures it with the real Claude Code as the caller).
 */
import { appendFileSync, cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageMonthFile } from '../../src/jobs/record/state-paths.js';
import { runCli } from '../cli/cli-process.js';
import { makeRepo } from '../helpers/git-repo.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { connect, makeDirs, ok, serverEnv, writeConfig, type Connected, type E2EDirs } from '../e2e/harness.js';
import { plainMedian } from './plain-median.js';

const PEG = 'Failed to parse input at pos 12: <tool_call>';
let dirs: E2EDirs;
let sims: Simulator[] = [];
let servers: Connected[] = [];
let otherRepo: string;
/** The results the official client received for one job, by call. */
const receivedBytes: number[] = [];
let countedJob = '';
const damagedId = '20261101-120000-000000000dmg';
let unreadableId = '';

const env = (): Record<string, string> => serverEnv(dirs, { TZ: 'UTC' });

async function finished(server: Connected, id: string): Promise<void> {
  for (;;) {
    const r = ok(await server.call('wait_job', { job_id: id, timeout_s: 110 }));
    if (r.status !== 'queued' && r.status !== 'running') return;
  }
}

/** Calls a tool about `countedJob` and remembers the size of what the client got back. */
async function counted(server: Connected, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const result = await server.call(name, args);
  receivedBytes.push(Buffer.byteLength(JSON.stringify(result), 'utf8'));
  return result;
}

/** A copy of a real job folder under an id and creation time `daysBack` days earlier. */
function copyBack(id: string, daysBack: number, suffix: string): void {
  const from = join(dirs.state, 'jobs', id);
  const record = JSON.parse(readFileSync(join(from, 'job.json'), 'utf8')) as Record<string, unknown>;
  const created = new Date(Date.parse(String(record.created_at)) - daysBack * 86_400_000);
  const newId = `${created.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}-${suffix}`;
  const to = join(dirs.state, 'jobs', newId);
  cpSync(from, to, { recursive: true });
  writeFileSync(join(to, 'job.json'), JSON.stringify({ ...record, id: newId, created_at: created.toISOString() }));
}

beforeAll(async () => {
  dirs = makeDirs();
  otherRepo = makeRepo();
  const script = (req: { lastUserText: string }) =>
    req.lastUserText.includes('FAIL')
      ? { text: 'partial', streamError: { message: PEG } }
      : req.lastUserText.includes('WRITE') && !req.lastUserText.includes('File created')
        ? { text: 'Writing.', toolUse: { name: 'Write', input: { file_path: 'note.txt', content: 'hello\n' } } }
        : { text: 'done' };
  sims = [
    await startSimulator({ flavor: 'llama.cpp', slots: 4, modelId: 'model-a', script }),
    await startSimulator({ flavor: 'llama.cpp', slots: 4, modelId: 'model-b', script }),
  ];
  writeConfig(dirs, [
    'endpoints:',
    ...sims.flatMap((s, i) => [`  gpu-${'ab'[i]}:`, `    base_url: ${s.url}`, '    env:', '      CLAUDE_CODE_MAX_RETRIES: "1"']),
    '',
  ].join('\n'));
  servers = await Promise.all([connect(dirs, { TZ: 'UTC' }), connect(dirs, { TZ: 'UTC' })]);
  const [a, b] = servers as [Connected, Connected];

  const started = await counted(a, 'run_agent', { wait_s: 0, task: 'WRITE a note, then say done.', endpoint: 'gpu-a' });
  countedJob = String(ok(started).id);
  const jobs: Array<[Connected, string]> = [];
  for (const [server, args] of [
    [a, { task: 'Say done.', endpoint: 'gpu-a' }],
    [a, { task: 'FAIL at the first answer.', endpoint: 'gpu-a' }],
    [b, { task: 'Say done.', endpoint: 'gpu-b' }],
    [b, { task: 'WRITE in the other repo.', endpoint: 'gpu-b', cwd: otherRepo }],
  ] as const) {
    jobs.push([server, String(ok(await server.call('run_agent', args)).id)]);
  }
  const cli = runCli(['--config', dirs.config, 'run', '--no-follow', '--json', '--endpoint', 'gpu-b', 'Say done from the command line.'], { cwd: dirs.repo, env: env(), timeoutMs: 170_000 });

  for (;;) {
    const r = ok(await counted(a, 'wait_job', { job_id: countedJob, timeout_s: 110 }));
    if (r.status !== 'queued' && r.status !== 'running') break;
  }
  await counted(a, 'jobs', { job_id: countedJob });
  await counted(a, 'jobs', { job_id: countedJob, tail_lines: 60 });
  for (const [server, id] of jobs) await finished(server, id);
  expect((await cli).code).toBe(0);

  // Earlier days: copies of real records, moved back in time.
  copyBack(countedJob, 10, '0000000000aa');
  copyBack(jobs[2]![1], 40, '0000000000bb');
  // A damaged record, and a log with a line that is not a request and a last line cut short.
  cpSync(join(dirs.state, 'jobs', jobs[0]![1]), join(dirs.state, 'jobs', damagedId), { recursive: true });
  writeFileSync(join(dirs.state, 'jobs', damagedId, 'job.json'), '{"id": "20261101-120000-000000000dmg", "status": ');
  unreadableId = jobs[3]![1];
  const log = join(dirs.state, 'jobs', unreadableId, 'requests.jsonl');
  const lines = readFileSync(log, 'utf8').split('\n');
  writeFileSync(log, [lines[0], 'not json at all', ...lines.slice(1)].join('\n'));
  appendFileSync(log, '{"t":"2026-12-02T08:00:00.000Z","path":"/v1/messages","method":"POST","status":200,"total_ms":12');
}, 300_000);

afterAll(async () => {
  await Promise.allSettled(servers.map((s) => s.close()));
  await Promise.allSettled(sims.map((s) => s.close()));
});

interface Expected {
  key: string;
  jobs: { succeeded: number; failed: number; other: number };
  turns: number;
  requests: number;
  evaluated: number;
  cached: number;
  output: number;
  gpuHundredths: number; // whole hundredths of a ms, as logged: adds up exactly in any order
  promptSpeeds: number[];
  genSpeeds: number[];
}

interface DiskJob {
  id: string;
  status: string;
  created_at: string;
  cwd: string;
  num_turns: number;
  model: { served?: string; endpoint?: string };
}

/** ISO week of a UTC date, computed the textbook way. */
function isoWeekUtc(iso: string): string {
  const d = new Date(`${iso.slice(0, 10)}T00:00:00Z`);
  const day = (d.getUTCDay() + 6) % 7;
  d.setUTCDate(d.getUTCDate() - day + 3);
  const yearStart = Date.UTC(d.getUTCFullYear(), 0, 1);
  const week = Math.floor((d.getTime() - yearStart) / 86_400_000 / 7) + 1;
  return `${d.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}

const keyOf: Record<string, (j: DiskJob) => string> = {
  day: (j) => j.created_at.slice(0, 10),
  week: (j) => isoWeekUtc(j.created_at),
  month: (j) => j.created_at.slice(0, 7),
  model: (j) => j.model.served ?? '(none)',
  endpoint: (j) => j.model.endpoint ?? '(none)',
  repo: (j) => j.cwd,
  job: (j) => j.id,
};

/** The rows, from job.json and requests.jsonl, read here with JSON.parse and nothing of localagents. */
function expectedRows(by: string, sinceMs = 0): Expected[] {
  const rows = new Map<string, Expected>();
  for (const id of readdirSync(join(dirs.state, 'jobs'))) {
    let job: DiskJob;
    try {
      job = JSON.parse(readFileSync(join(dirs.state, 'jobs', id, 'job.json'), 'utf8')) as DiskJob;
    } catch {
      continue;
    }
    if (Date.parse(job.created_at) < sinceMs) continue;
    const key = keyOf[by]!(job);
    const row = rows.get(key) ?? { key, jobs: { succeeded: 0, failed: 0, other: 0 }, turns: 0, requests: 0, evaluated: 0, cached: 0, output: 0, gpuHundredths: 0, promptSpeeds: [], genSpeeds: [] };
    rows.set(key, row);
    if (job.status === 'succeeded') row.jobs.succeeded++;
    else if (job.status === 'failed' || job.status === 'timeout') row.jobs.failed++;
    else row.jobs.other++;
    row.turns += job.num_turns;
    const text = readFileSync(join(dirs.state, 'jobs', id, 'requests.jsonl'), 'utf8');
    for (const line of text.split('\n').slice(0, text.endsWith('\n') ? undefined : -1)) {
      let e: { path: string; method: string; total_ms: number; ttfb_ms?: number; usage?: { input_tokens?: number; cache_read_input_tokens?: number; output_tokens?: number } };
      try {
        e = JSON.parse(line) as typeof e;
      } catch {
        continue;
      }
      if (e.path !== '/v1/messages' || e.method !== 'POST') continue;
      const input = e.usage?.input_tokens ?? 0;
      const output = e.usage?.output_tokens ?? 0;
      row.requests++;
      row.evaluated += input;
      row.cached += e.usage?.cache_read_input_tokens ?? 0;
      row.output += output;
      row.gpuHundredths += Math.round(e.total_ms * 100);
      if (e.ttfb_ms !== undefined && e.ttfb_ms > 0 && input > 0) row.promptSpeeds.push(input / (e.ttfb_ms / 1000));
      if (e.ttfb_ms !== undefined && e.total_ms - e.ttfb_ms > 0 && output > 1) row.genSpeeds.push(output / ((e.total_ms - e.ttfb_ms) / 1000));
    }
  }
  return [...rows.values()].sort((x, y) => x.key.localeCompare(y.key));
}

interface JsonRow {
  key: string;
  jobs: Expected['jobs'];
  turns: number;
  requests: number;
  evaluated: number;
  cached: number;
  output: number;
  cache_reuse: number | null;
  gpu_ms: number;
  median_prompt_tokens_per_s: number | null;
  median_generation_tokens_per_s: number | null;
  caller: { measured: number; unknown: number; pending: number; turns: number };
}

interface JsonReport {
  rows: JsonRow[];
  total: JsonRow;
  damaged: { id: string; problem: string }[];
  unreadable: { id: string; lines: number; half_written: boolean }[];
}

async function usage(...args: string[]): Promise<{ report: JsonReport; stderr: string }> {
  const r = await runCli(['--config', dirs.config, 'usage', '--json', ...args], { cwd: dirs.repo, env: env() });
  expect(r.code, r.stderr).toBe(0);
  return { report: JSON.parse(r.stdout) as JsonReport, stderr: r.stderr };
}

function checkRows(actual: JsonRow[], expected: Expected[]): void {
  expect(actual.map((r) => r.key)).toEqual(expected.map((r) => r.key));
  for (const [i, e] of expected.entries()) {
    const a = actual[i]!;
    expect({ key: a.key, jobs: a.jobs, turns: a.turns, requests: a.requests, evaluated: a.evaluated, cached: a.cached, output: a.output, gpu: a.gpu_ms }).toEqual({
      key: e.key, jobs: e.jobs, turns: e.turns, requests: e.requests, evaluated: e.evaluated, cached: e.cached, output: e.output, gpu: Math.round(e.gpuHundredths / 100),
    });
    const prompt = e.evaluated + e.cached;
    expect(a.cache_reuse ?? null).toEqual(prompt > 0 ? e.cached / prompt : null);
    const [mp, mg] = [plainMedian(e.promptSpeeds), plainMedian(e.genSpeeds)];
    if (mp === null) expect(a.median_prompt_tokens_per_s ?? null).toBeNull();
    else expect(a.median_prompt_tokens_per_s).toBeCloseTo(mp, 6);
    if (mg === null) expect(a.median_generation_tokens_per_s ?? null).toBeNull();
    else expect(a.median_generation_tokens_per_s).toBeCloseTo(mg, 6);
  }
}

describe('localagents usage over real job records', () => {
  it('the jobs came from three processes and both endpoints, and requests.jsonl has tokens to count', () => {
    const rows = expectedRows('job');
    const owners = new Set(rows.map((r) => (JSON.parse(readFileSync(join(dirs.state, 'jobs', r.key, 'job.json'), 'utf8')) as { owner_pid: number }).owner_pid));
    expect(owners.size).toBe(3);
    expect(rows.reduce((n, r) => n + r.evaluated, 0)).toBeGreaterThan(1000);
    expect(rows.reduce((n, r) => n + r.jobs.failed, 0)).toBeGreaterThanOrEqual(1);
  });

  for (const by of ['day', 'week', 'month', 'model', 'endpoint', 'repo', 'job']) {
    it(`--by ${by}: every column matches the sums of requests.jsonl`, async () => {
      const { report } = await usage('--by', by);
      checkRows(report.rows, expectedRows(by));
      checkRows([report.total], expectedRows('month').length > 0 ? [mergeAll(expectedRows(by))] : []);
    }, 60_000);
  }

  it('--since keeps the jobs created since then (a date, and a span back)', async () => {
    const since = new Date(Date.now() - 15 * 86_400_000);
    const { report } = await usage('--by', 'day', '--since', since.toISOString().slice(0, 10));
    const sinceMidnight = Date.parse(`${since.toISOString().slice(0, 10)}T00:00:00Z`);
    checkRows(report.rows, expectedRows('day', sinceMidnight));
    expect(report.rows.length).toBe(2); // today and 10 days back; not 40
    const spanned = await usage('--by', 'day', '--since', '5d');
    checkRows(spanned.report.rows, expectedRows('day', Date.now() - 5 * 86_400_000));
    expect(spanned.report.rows.length).toBe(1);
  }, 60_000);

  it('damaged and half-written records are counted and named, not fatal', async () => {
    const { report, stderr } = await usage('--by', 'day');
    expect(report.damaged.map((d) => d.id)).toEqual([damagedId]);
    expect(report.unreadable).toEqual([{ id: unreadableId, lines: 1, half_written: true }]);
    const text = await runCli(['--config', dirs.config, 'usage'], { cwd: dirs.repo, env: env() });
    expect(text.code).toBe(0);
    expect(text.stderr).toContain(`damaged job record ${damagedId}`);
    expect(text.stderr).toContain(`job ${unreadableId}: 1 unreadable log line(s), and a half-written last line (not counted)`);
    expect(stderr).toContain(damagedId);
    expect(text.stdout).toMatch(/^total: 8 jobs \(\d+ succeeded, \d+ failed, \d+ other\)/m);
    expect(text.stdout).toContain('caller: cost unknown for every job (');
  }, 60_000);

  it('caller.jsonl has one line per call, the size of each result the official MCP client received; no tool_use id, so the cost is unknown', async () => {
    const lines = readFileSync(join(dirs.state, 'jobs', countedJob, 'caller.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { tool: string; result_bytes: number });
    expect(lines.map((l) => l.tool)).toEqual(['run_agent', ...receivedBytes.slice(1, -2).map(() => 'wait_job'), 'jobs', 'jobs']);
    expect(lines.map((l) => l.result_bytes)).toEqual(receivedBytes);
    const { report } = await usage('--by', 'job');
    const row = report.rows.find((r) => r.key === countedJob)!;
    expect(row.caller).toMatchObject({ measured: 0, unknown: 1, pending: 0, turns: 0 });
    const show = await runCli(['--config', dirs.config, 'show', countedJob], { cwd: dirs.repo, env: env() });
    expect(show.stdout).toContain('caller cost unknown: the caller sent no tool_use id (not Claude Code, or a version before it did)');
  }, 60_000);

  it('caller lines another process appends after the job ended are read again, with the index as without it', async () => {
    expect(existsSync(indexDir())).toBe(true); // written by the reports above
    const before = await usage('--by', 'job');
    // The other MCP server process (not the one that ran the job) is asked about it, twice.
    const other = servers[1]!;
    for (let i = 0; i < 2; i++) await counted(other, 'jobs', { job_id: countedJob });
    const after = await usage('--by', 'job');
    const row = after.report.rows.find((r) => r.key === countedJob)!;
    expect(readFileSync(join(dirs.state, 'jobs', countedJob, 'caller.jsonl'), 'utf8').trim().split('\n')).toHaveLength(receivedBytes.length);
    expect(row.caller).toEqual(before.report.rows.find((r) => r.key === countedJob)!.caller);
    checkRows(after.report.rows, expectedRows('job'));
    rmSync(indexDir(), { recursive: true });
    const rebuilt = await usage('--by', 'job');
    expect(comparable(rebuilt.report)).toEqual(comparable(after.report));
  }, 60_000);

  it('a missing, damaged or foreign index gives the same report as none, for every grouping and --since', async () => {
    const since = new Date(Date.now() - 15 * 86_400_000).toISOString().slice(0, 10);
    const runs = [['--by', 'day'], ['--by', 'model'], ['--by', 'job'], ['--by', 'week', '--since', since]];
    rmSync(indexDir(), { recursive: true, force: true });
    const fresh = [];
    for (const args of runs) fresh.push(comparable((await usage(...args)).report)); // each run reads what the one before wrote
    const text = (await runCli(['--config', dirs.config, 'usage'], { cwd: dirs.repo, env: env() })).stdout;
    const months = readdirSync(indexDir()).filter((n) => n.endsWith('.jsonl'));
    // One file per month with a job kept in it (a recent job whose fate git may still find is not kept yet).
    const ofJobs = new Set(readdirSync(join(dirs.state, 'jobs')).map((id) => basename(usageMonthFile(dirs.state, id))));
    expect(months.length).toBeGreaterThan(0);
    for (const name of months) expect(ofJobs).toContain(name);
    const damage = [
      (file: string) => writeFileSync(file, readFileSync(file, 'utf8').slice(0, 100)), // cut short
      (file: string) => writeFileSync(file, readFileSync(file, 'utf8').replace(/"succeeded"/, '"sucseeded"')), // edited
      (file: string) => writeFileSync(file, readFileSync(file, 'utf8').replace(/^\[/gm, '{')), // not the format we write
      (file: string) => writeFileSync(file, `${readFileSync(file, 'utf8').split('\n')[0]}`), // one line, its newline lost
      (file: string) => writeFileSync(file, readFileSync(file, 'utf8').replace(/^(\["[^"]+",)\d+/gm, '$1999999999')), // true as of a size the file never had
    ];
    for (const hurt of damage) {
      for (const name of months) hurt(join(indexDir(), name));
      for (const [i, args] of runs.entries()) expect(comparable((await usage(...args)).report)).toEqual(fresh[i]);
      expect((await runCli(['--config', dirs.config, 'usage'], { cwd: dirs.repo, env: env() })).stdout).toBe(text);
    }
    checkRows((await usage('--by', 'day')).report.rows, expectedRows('day'));
  }, 120_000);
});

const indexDir = (): string => join(dirs.state, 'usage-index');

/** A report with its dollar sums rounded: the index may add the same jobs in another order. */
function comparable(report: JsonReport): unknown {
  return JSON.parse(JSON.stringify(report, (_key, value: unknown) => (typeof value === 'number' && !Number.isInteger(value) ? Number(value.toPrecision(12)) : value)));
}

function mergeAll(rows: Expected[]): Expected {
  const t: Expected = { key: 'total', jobs: { succeeded: 0, failed: 0, other: 0 }, turns: 0, requests: 0, evaluated: 0, cached: 0, output: 0, gpuHundredths: 0, promptSpeeds: [], genSpeeds: [] };
  for (const r of rows) {
    t.jobs.succeeded += r.jobs.succeeded;
    t.jobs.failed += r.jobs.failed;
    t.jobs.other += r.jobs.other;
    for (const k of ['turns', 'requests', 'evaluated', 'cached', 'output', 'gpuHundredths'] as const) t[k] += r[k];
    t.promptSpeeds.push(...r.promptSpeeds);
    t.genSpeeds.push(...r.genSpeeds);
  }
  return t;
}
