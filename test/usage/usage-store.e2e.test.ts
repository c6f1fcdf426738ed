/**
 * The usage store (a month's settled jobs, one summary line each) against the
 * jobs themselves: `localagents usage` is run on job folders written here, and
 * every report is checked against sums this test computes from what it wrote,
 * after the summaries were written and then made stale: a new job, a removed
 * one, a caller cost appended after a job ended, another time zone, a window that
 * starts inside a day, a damaged month file, an older version's index files.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { appendCallerEntry } from '../../src/jobs/record/caller-log.js';
import { createJobStore } from '../../src/jobs/record/job-store.js';
import { runCli } from '../cli/cli-process.js';
import { makeDirs, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { plainMedian } from './plain-median.js';

interface Request {
  readonly input: number;
  readonly cached: number;
  readonly output: number;
  readonly ttfb: number;
  readonly total: number;
}

interface Written {
  readonly id: string;
  readonly at: Date;
  readonly status: 'succeeded' | 'failed';
  readonly model: string;
  readonly endpoint: string;
  readonly repo: string;
  readonly requests: readonly Request[];
  /** Caller turns measured for it ('' model: none; the job has no caller, so its cost is unknown). */
  callerTurns: number;
}

let dirs: E2EDirs;
let jobs: Written[];

const HOUR = 3_600_000;

function writeJob(at: Date, n: number): Written {
  const stamp = at.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const job: Written = {
    id: `${stamp}-${String(n).padStart(12, '0')}`,
    at,
    status: n % 5 === 3 ? 'failed' : 'succeeded',
    model: n % 3 === 0 ? 'model-b' : 'model-a',
    endpoint: n % 2 === 0 ? 'gpu-a' : 'gpu-b',
    repo: n % 4 === 1 ? '/home/dev/other' : '/home/dev/project',
    // Speeds differ from request to request, so a median taken from the wrong jobs shows.
    requests: Array.from({ length: 1 + (n % 3) }, (_, r) => ({ input: 1000 + 37 * n + r, cached: 5000 + n, output: 50 + 7 * r + (n % 11), ttfb: 200 + 13 * ((n + r) % 17), total: 2000 + 31 * n })),
    callerTurns: 0,
  };
  const dir = join(dirs.state, 'jobs', job.id);
  mkdirSync(dir, { recursive: true });
  const iso = at.toISOString();
  writeFileSync(join(dir, 'job.json'), JSON.stringify({
    id: job.id, status: job.status, created_at: iso, started_at: iso, finished_at: iso, task_preview: 'a job', model: { requested: job.model, served: job.model, endpoint: job.endpoint },
    cwd: job.repo, work_dir: job.repo, isolation: 'none', permission_mode: 'acceptEdits', max_turns: 10, timeout_s: 60, allowed_tools: [], disallowed_tools: [], num_turns: 2 + n, tool_calls: 0,
    files_touched: [], usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0 }, requests: job.requests.length, warnings: [], owner_pid: 999999,
  }));
  writeFileSync(join(dir, 'requests.jsonl'), job.requests.map((r, i) => `${JSON.stringify({
    t: iso, request: i + 1, path: '/v1/messages', method: 'POST', status: 200, ttfb_ms: r.ttfb, total_ms: r.total, usage: { input_tokens: r.input, cache_read_input_tokens: r.cached, output_tokens: r.output },
  })}\n`).join(''));
  return job;
}

/** The local day of an instant in `zone`, by Intl (not by localagents). */
const dayIn = (zone: string, at: Date): string => new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);

const KEYS: Record<string, (j: Written, zone: string) => string> = {
  day: (j, zone) => dayIn(zone, j.at),
  month: (j, zone) => dayIn(zone, j.at).slice(0, 7),
  model: (j) => j.model,
  endpoint: (j) => j.endpoint,
  repo: (j) => j.repo,
};

interface Row {
  key: string;
  jobs: { succeeded: number; failed: number; other: number };
  turns: number;
  requests: number;
  evaluated: number;
  cached: number;
  output: number;
  median_prompt_tokens_per_s: number | null;
  median_generation_tokens_per_s: number | null;
  caller: { measured: number; unknown: number; turns: number };
}

/** The rows a report should have, from the jobs this test wrote. */
function expected(by: string, zone: string, sinceMs = -Infinity): Row[] {
  const rows = new Map<string, Row & { prompt: number[]; gen: number[] }>();
  for (const j of jobs.filter((x) => x.at.getTime() >= sinceMs)) {
    const key = KEYS[by]!(j, zone);
    const row = rows.get(key) ?? { key, jobs: { succeeded: 0, failed: 0, other: 0 }, turns: 0, requests: 0, evaluated: 0, cached: 0, output: 0, median_prompt_tokens_per_s: null, median_generation_tokens_per_s: null, caller: { measured: 0, unknown: 0, turns: 0 }, prompt: [], gen: [] };
    rows.set(key, row);
    row.jobs[j.status]++;
    row.turns += 2 + Number(j.id.slice(-12));
    if (j.callerTurns > 0) row.caller.measured++;
    else row.caller.unknown++;
    row.caller.turns += j.callerTurns;
    for (const r of j.requests) {
      row.requests++;
      row.evaluated += r.input;
      row.cached += r.cached;
      row.output += r.output;
      row.prompt.push(r.input / (r.ttfb / 1000));
      row.gen.push(r.output / ((r.total - r.ttfb) / 1000));
    }
  }
  return [...rows.values()].sort((a, b) => a.key.localeCompare(b.key)).map(({ prompt, gen, ...row }) => ({ ...row, median_prompt_tokens_per_s: plainMedian(prompt), median_generation_tokens_per_s: plainMedian(gen) }));
}

async function report(zone: string, ...args: string[]): Promise<Row[]> {
  const r = await runCli(['--config', dirs.config, 'usage', '--json', ...args], { cwd: dirs.repo, env: serverEnv(dirs, { TZ: zone }) });
  expect(r.code, r.stderr).toBe(0);
  const rows = (JSON.parse(r.stdout) as { rows: Row[] }).rows;
  return rows.map((x) => ({ key: x.key, jobs: x.jobs, turns: x.turns, requests: x.requests, evaluated: x.evaluated, cached: x.cached, output: x.output, median_prompt_tokens_per_s: x.median_prompt_tokens_per_s ?? null, median_generation_tokens_per_s: x.median_generation_tokens_per_s ?? null, caller: { measured: x.caller.measured, unknown: x.caller.unknown, turns: x.caller.turns } }));
}

const indexDir = (): string => join(dirs.state, 'usage-index');
const monthFiles = (): string[] => readdirSync(indexDir()).filter((n) => n.endsWith('.jsonl')).map((n) => join(indexDir(), n));
const cellFiles = (): string[] => readdirSync(indexDir()).filter((n) => n.endsWith('.cells.json')).map((n) => join(indexDir(), n));

/** Adds `n` to the requests of every cell of every month (the sums' fifth place): a report read from cells shows it. */
function editCells(n: number): void {
  for (const file of cellFiles()) {
    const json = JSON.parse(readFileSync(file, 'utf8')) as { cells: [unknown, unknown, unknown, unknown, unknown, unknown, unknown, number[]][] };
    for (const cell of json.cells) (cell[7][4] as number) += n;
    writeFileSync(file, JSON.stringify(json));
  }
}
const requestsOf = (rows: readonly Row[]): number => rows.reduce((n, r) => n + r.requests, 0);
const countCells = (): number => cellFiles().reduce((n, f) => n + (JSON.parse(readFileSync(f, 'utf8')) as { cells: unknown[] }).cells.length, 0);

beforeEach(() => {
  dirs = makeDirs();
  writeConfig(dirs, 'endpoints: {}\n');
  // Three months of jobs, every 7 hours, so days start and end in every zone's hours.
  const start = Date.UTC(2026, 8, 28, 1, 30);
  jobs = Array.from({ length: 120 }, (_, n) => writeJob(new Date(start + n * 7 * HOUR), n));
});

describe('usage from the store', () => {
  it('the report reads the summaries: a count edited in a month file shows in it', async () => {
    await report('UTC', '--by', 'day'); // writes the summaries
    const file = monthFiles()[0]!;
    const [first, ...rest] = readFileSync(file, 'utf8').split('\n');
    const summary = JSON.parse(first!) as unknown[];
    (summary[8] as number) += 1000; // the job's requests
    writeFileSync(file, [JSON.stringify(summary), ...rest].join('\n'));
    const job = jobs.find((j) => j.id === summary[0])!;
    const rows = await report('UTC', '--by', 'day');
    const want = expected('day', 'UTC').find((r) => r.key === dayIn('UTC', job.at))!;
    expect(rows.find((r) => r.key === want.key)!.requests).toBe(want.requests + 1000);
  });

  for (const by of ['day', 'month', 'model', 'endpoint', 'repo']) {
    it(`--by ${by}: the report from the store is the jobs' own, medians exact`, async () => {
      expect(await report('UTC', '--by', by)).toEqual(expected(by, 'UTC')); // from the jobs' files
      expect(await report('UTC', '--by', by)).toEqual(expected(by, 'UTC')); // from the summaries
      expect(await report('UTC', '--by', by)).toEqual(expected(by, 'UTC')); // from the months' cells
    });
  }

  it('a new job on a day already summed is counted, and a removed one drops out', async () => {
    await report('UTC', '--by', 'day');
    jobs.push(writeJob(new Date(jobs[40]!.at.getTime() + HOUR), 900));
    expect(await report('UTC', '--by', 'day')).toEqual(expected('day', 'UTC'));
    const gone = jobs.splice(41, 1)[0]!;
    rmSync(join(dirs.state, 'jobs', gone.id), { recursive: true });
    expect(await report('UTC', '--by', 'day')).toEqual(expected('day', 'UTC'));
    expect(await report('UTC', '--by', 'model')).toEqual(expected('model', 'UTC'));
  });

  it('a caller cost appended after a job ended is counted though its day was summed', async () => {
    await report('UTC', '--by', 'day');
    const job = jobs[10]!;
    const cost = { calls: 0, model: 'claude-opus-5', turns: 3, input: 10, cache_read: 2000, cache_write_5m: 0, cache_write_1h: 0, output: 30, transcript: '/t.jsonl' };
    await appendCallerEntry(createJobStore(dirs.state), job.id, { t: new Date().toISOString(), caller_cost: cost });
    job.callerTurns = 3;
    expect(await report('UTC', '--by', 'day')).toEqual(expected('day', 'UTC'));
    expect(await report('UTC', '--by', 'day')).toEqual(expected('day', 'UTC')); // from the summary written again
  });

  it('another time zone gets its own days from the same summaries', async () => {
    await report('UTC', '--by', 'day');
    expect(expected('day', 'Asia/Kolkata')).not.toEqual(expected('day', 'UTC'));
    for (const zone of ['Asia/Kolkata', 'America/New_York', 'UTC', 'Asia/Kolkata']) {
      expect(await report(zone, '--by', 'day')).toEqual(expected('day', zone));
      expect(await report(zone, '--by', 'month')).toEqual(expected('month', zone));
    }
  });

  it('a window that starts inside a day counts that day job by job', async () => {
    // Jobs every hour up to half an hour ago; the window starts near noon UTC two days back, inside a day in both zones.
    rmSync(join(dirs.state, 'jobs'), { recursive: true });
    const now = Date.now();
    jobs = Array.from({ length: 90 }, (_, n) => writeJob(new Date(now - 0.5 * HOUR - n * HOUR), 200 + n));
    const today = new Date(now).setUTCHours(0, 0, 0, 0);
    const span = `${Math.floor((now - (today - 2 * 24 * HOUR + 12 * HOUR)) / HOUR)}h`;
    for (const zone of ['UTC', 'America/New_York']) {
      await report(zone, '--by', 'day');
      const since = now - Number.parseInt(span, 10) * HOUR;
      const rows = await report(zone, '--by', 'day', '--since', span);
      expect(rows).toEqual(expected('day', zone, since));
      const count = (r: Row | undefined): number => (r === undefined ? 0 : r.jobs.succeeded + r.jobs.failed);
      expect(count(rows[0])).toBeLessThan(count(expected('day', zone).find((r) => r.key === rows[0]!.key))); // the first day is cut
      expect(await report(zone, '--by', 'repo', '--since', span)).toEqual(expected('repo', zone, since));
    }
  });

  it('four processes writing the store at once each report right, and leave whole files the next report uses', async () => {
    const reports = await Promise.all([1, 2, 3, 4].map(() => report('UTC', '--by', 'day')));
    for (const rows of reports) expect(rows).toEqual(expected('day', 'UTC'));
    const identity = (): string[] => monthFiles().map((f) => `${statSync(f).ino} ${statSync(f).size}`);
    const written = identity();
    expect(await report('UTC', '--by', 'model')).toEqual(expected('model', 'UTC'));
    expect(await report('UTC', '--by', 'day')).toEqual(expected('day', 'UTC'));
    expect(identity()).toEqual(written); // read as they were: nothing appended, nothing rebuilt
    for (const file of monthFiles()) expect(readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').every((l) => Array.isArray(JSON.parse(l)))).toBe(true);
    expect(readdirSync(indexDir()).filter((n) => n.startsWith('.'))).toEqual([]); // no writer's temp file left
  }, 60_000);

  it("an older version's index files (binary months, caller ledger, id listing) are not read: the report is the jobs' own", async () => {
    mkdirSync(indexDir(), { recursive: true });
    writeFileSync(join(indexDir(), '2026-10.bin'), '{"v":5,"ledger":0,"days":[],"jobs":0,"speeds":0,"rows":3}\n\n{}\n');
    writeFileSync(join(indexDir(), 'caller-ledger.log'), `${jobs[3]!.id}\n`);
    writeFileSync(join(indexDir(), 'job-ids.txt'), 'localagents job ids v2 0 0 0\n');
    expect(await report('UTC', '--by', 'day')).toEqual(expected('day', 'UTC'));
    expect(await report('UTC', '--by', 'day')).toEqual(expected('day', 'UTC'));
  });

  describe("a month's cells", () => {
    const settle = async (zone = 'UTC'): Promise<void> => {
      await report(zone, '--by', 'day'); // the summaries
      await report(zone, '--by', 'day'); // the cells, from the summaries alone
      expect(cellFiles()).toHaveLength(monthFiles().length);
    };

    it('are what a report over whole months reads: an edit to them shows', async () => {
      await settle();
      editCells(1000);
      const rows = await report('UTC', '--by', 'model');
      expect(requestsOf(rows)).toBe(requestsOf(expected('model', 'UTC')) + 1000 * countCells());
      expect(await report('UTC', '--by', 'job')).toHaveLength(jobs.length); // by job: one row a job, from the summaries
    });

    it('are not read once the month changed: an outcome, a pruned job, a new one', async () => {
      await settle();
      editCells(1000); // shows wherever the cells were still read
      const cost = { calls: 0, model: 'claude-opus-5', turns: 3, input: 10, cache_read: 2000, cache_write_5m: 0, cache_write_1h: 0, output: 30, transcript: '/t.jsonl' };
      await appendCallerEntry(createJobStore(dirs.state), jobs[10]!.id, { t: new Date().toISOString(), caller_cost: cost });
      jobs[10]!.callerTurns = 3;
      const gone = jobs.splice(60, 1)[0]!;
      rmSync(join(dirs.state, 'jobs', gone.id), { recursive: true });
      jobs.push(writeJob(new Date(jobs[100]!.at.getTime() + HOUR), 901));
      const months = new Set([jobs[10]!, gone, jobs.at(-1)!].map((j) => j.id.slice(0, 6)));
      const rows = await report('UTC', '--by', 'month');
      const changed = expected('month', 'UTC');
      // The months with a change are the jobs' own; any other month still shows the edit.
      for (const row of rows) {
        const want = changed.find((r) => r.key === row.key)!;
        const touched = [...months].some((m) => row.key === `${m.slice(0, 4)}-${m.slice(4, 6)}`);
        if (touched) expect(row).toEqual(want);
        else expect(row.requests).toBeGreaterThan(want.requests);
      }
    });

    it('summed in one time zone are not used in another', async () => {
      await settle('UTC');
      editCells(1000);
      for (const zone of ['Asia/Kolkata', 'America/New_York']) expect(await report(zone, '--by', 'day')).toEqual(expected('day', zone));
    });

    it('are read around when damaged', async () => {
      await settle();
      const damage = [() => '{garbage', () => '', (t: string) => t.slice(0, t.length / 2), (t: string) => t.replace('"cells":[[', '"cells":[[1,'), (t: string) => t.replace(/"of":"[^"]*"/, '"of":"x"')];
      for (const hurt of damage) {
        for (const file of cellFiles()) writeFileSync(file, hurt(readFileSync(file, 'utf8')));
        expect(await report('UTC', '--by', 'repo')).toEqual(expected('repo', 'UTC'));
        expect(await report('UTC', '--by', 'day')).toEqual(expected('day', 'UTC')); // from the cells written again
      }
    }, 60_000);
  });

  it('a damaged month file is read around: its jobs come from their files, and get new summaries', async () => {
    await report('UTC', '--by', 'day');
    const damage = [
      () => '{garbage',
      () => '',
      (text: string) => text.replace(/"succeeded"/g, '"done"'), // every summary of a job that succeeded edited
      (text: string) => text.slice(0, text.length - 40), // cut short: the last line half there
      (text: string) => text.split('\n').map((l) => l.slice(0, 50)).join('\n'), // every line cut
      (text: string) => text.replace(/^(\["[^"]+",)\d+/gm, '$1999999999'), // true as of a size the file never had
    ];
    for (const hurt of damage) {
      for (const file of monthFiles()) writeFileSync(file, hurt(readFileSync(file, 'utf8')));
      expect(await report('UTC', '--by', 'day')).toEqual(expected('day', 'UTC'));
      expect(await report('UTC', '--by', 'day')).toEqual(expected('day', 'UTC')); // from the summaries written again
    }
  }, 120_000);
});
