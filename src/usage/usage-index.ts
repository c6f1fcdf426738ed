/**
 * The usage index: the sums of every settled job (finished, its ticket off the
 * slot board, so its record and requests.jsonl never change again), one file per
 * UTC month of job ids (`<state>/usage-index/2026-12.json`), so a report over a
 * year of jobs reads a dozen files instead of three per job.
 *
 * A job's caller.jsonl still grows after it ended (job_status, job_log, from any
 * process); each append is noted in the caller ledger (src/jobs/caller-log.ts).
 * A month file remembers how far into the ledger it had read; the jobs noted
 * since are read again. The ledger's size is taken before any job file is read,
 * so everything a month file says is true as of the offset it stores: two
 * processes writing the same month at once each write a true file (through a
 * rename), and the later one wins. A month file that is missing, unreadable, of
 * another version or damaged is rebuilt from the jobs' own files. Writing is
 * best effort: a read-only state directory only makes reports slower.
 */
import { open, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { privateDir, writePrivateFile } from '../coord/private-files.js';
import { isJobId } from '../coord/job-id-shape.js';
import { callerLedgerFile, usageIndexDir } from '../jobs/caller-log.js';
import type { JobRecord } from '../jobs/job-record.js';
import type { JobUsage } from './job-usage.js';

const VERSION = 1;
/** A month of a busy year is well under this; a bigger file is not one we wrote. */
const MAX_MONTH_BYTES = 64 * 1024 * 1024;
/** The most of the ledger read at once; a month further behind is rebuilt instead. */
const MAX_LEDGER_READ = 16 * 1024 * 1024;
/** A month file is rewritten once its ledger offset lags this far, so the next read of the ledger stays short. */
const LEDGER_LAG_REWRITE = 64 * 1024;

/** The month file a job id belongs to: `2026-12` from `20261202-…`. */
export const monthOf = (id: string): string => `${id.slice(0, 4)}-${id.slice(4, 6)}`;

export interface IndexedMonth {
  /** The job's usage as indexed, unless the job is not indexed or its caller.jsonl grew since. */
  cached(id: string): JobUsage | undefined;
  /** Indexes a settled job's usage. */
  remember(job: JobUsage): void;
  /** Drops a job (its record is damaged or gone). */
  forget(id: string): void;
  /** Writes the month back when it changed; jobs no longer in `existing` are dropped. Never throws. */
  save(existing: ReadonlySet<string>): Promise<void>;
}

export interface UsageIndex {
  month(key: string): Promise<IndexedMonth>;
}

/**
 * One job as a row: [id, status, created_at, model, endpoint, repo (the three as indexes into the month's
 * strings), turns, requests, evaluated, cache written, cached, output, GPU ms, caller calls, caller args bytes,
 * caller result bytes, unreadable lines, half written (0/1), verify ([passed 0/1, fix turns, fix tokens] or 0),
 * prompt tokens/s per request, generation tokens/s per request].
 */
type Row = readonly unknown[];
const ROW_LENGTH = 21;

function encode(job: JobUsage, strings: Map<string, number>): Row {
  const ref = (s: string): number => {
    let i = strings.get(s);
    if (i === undefined) strings.set(s, (i = strings.size));
    return i;
  };
  const v = job.verify;
  return [
    job.id, job.status, job.createdAt, ref(job.model), ref(job.endpoint), ref(job.repo),
    job.turns, job.requests, job.tokens.evaluated, job.tokens.cacheWritten, job.tokens.cached, job.tokens.output, job.gpuMs,
    job.caller.calls, job.caller.argsBytes, job.caller.resultBytes, job.unreadableLines, job.halfWritten ? 1 : 0,
    v === undefined ? 0 : [v.passed ? 1 : 0, v.fixTurns, v.fixTokens],
    job.promptTokensPerS, job.generationTokensPerS,
  ];
}

const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;
const isCounts = (xs: unknown): xs is number[] => Array.isArray(xs) && xs.every(isCount);
const STATUSES: ReadonlySet<string> = new Set<JobRecord['status']>(['queued', 'running', 'succeeded', 'failed', 'cancelled', 'timeout', 'interrupted']);

/** The job a row describes, or undefined for a row that is not one we wrote. */
function decode(row: unknown, strings: readonly string[]): JobUsage | undefined {
  if (!Array.isArray(row) || row.length !== ROW_LENGTH) return undefined;
  const [id, status, createdAt, model, endpoint, repo, ...rest] = row as unknown[];
  const [turns, requests, evaluated, cacheWritten, cached, output, gpuMs, calls, argsBytes, resultBytes, unreadable, half, verify, prompt, generation] = rest;
  const str = (i: unknown): string | undefined => (Number.isInteger(i) ? strings[i as number] : undefined);
  const [m, e, r] = [str(model), str(endpoint), str(repo)];
  const counts = [turns, requests, evaluated, cacheWritten, cached, output, gpuMs, calls, argsBytes, resultBytes, unreadable];
  if (typeof id !== 'string' || !isJobId(id) || typeof status !== 'string' || !STATUSES.has(status) || typeof createdAt !== 'string') return undefined;
  if (m === undefined || e === undefined || r === undefined || !counts.every(isCount) || (half !== 0 && half !== 1) || !isCounts(prompt) || !isCounts(generation)) return undefined;
  if (verify !== 0 && !(isCounts(verify) && verify.length === 3 && (verify[0] as number) <= 1)) return undefined;
  const v = verify as 0 | [number, number, number];
  return {
    id,
    status: status as JobRecord['status'],
    createdAt,
    model: m,
    endpoint: e,
    repo: r,
    turns: turns as number,
    requests: requests as number,
    tokens: { evaluated: evaluated as number, cacheWritten: cacheWritten as number, cached: cached as number, output: output as number },
    gpuMs: gpuMs as number,
    promptTokensPerS: prompt,
    generationTokensPerS: generation,
    caller: { calls: calls as number, argsBytes: argsBytes as number, resultBytes: resultBytes as number },
    verify: v === 0 ? undefined : { passed: v[0] === 1, fixTurns: v[1], fixTokens: v[2] },
    unreadableLines: unreadable as number,
    halfWritten: half === 1,
  };
}

/** A whole file, or undefined when it is missing, not a regular file or over `max` bytes. */
async function readBounded(path: string, from: number, max: number): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size - from > max || info.size < from) return undefined;
    const buffer = Buffer.alloc(info.size - from);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, from);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

interface MonthFile {
  readonly ledger: number;
  readonly strings: readonly string[];
  /** Each job's row, decoded only when asked for: a status line wants today's few of a month's hundreds. */
  readonly rows: Map<string, unknown>;
}

/** A month file's rows by job id, or undefined for one that is missing or damaged (then rebuilt). */
function parseMonth(text: string | undefined): MonthFile | undefined {
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null) return undefined;
  const { v, ledger, strings, jobs } = json as { v?: unknown; ledger?: unknown; strings?: unknown; jobs?: unknown };
  if (v !== VERSION || !isCount(ledger) || !Array.isArray(strings) || !strings.every((s) => typeof s === 'string') || !Array.isArray(jobs)) return undefined;
  const rows = new Map<string, unknown>();
  for (const row of jobs) {
    const id: unknown = Array.isArray(row) ? row[0] : undefined;
    if (typeof id !== 'string' || !isJobId(id)) return undefined;
    rows.set(id, row);
  }
  return { ledger, strings, rows };
}

/** The job ids noted in the ledger from `from` on (a line cut short by a writer still at it is no id). */
async function notedSince(ledger: string, from: number, size: number): Promise<Set<string> | undefined> {
  if (from === size) return new Set();
  const text = await readBounded(ledger, from, MAX_LEDGER_READ);
  if (text === undefined) return undefined;
  return new Set(text.split('\n').filter(isJobId));
}

/**
 * The index as of now: the ledger's size is read here, before the caller reads any job file
 * (what a month file is saved with is then true as of that size).
 */
export async function openUsageIndex(jobsRoot: string): Promise<UsageIndex> {
  const dir = usageIndexDir(dirname(jobsRoot));
  const ledger = callerLedgerFile(jobsRoot);
  const ledgerSize = await stat(ledger).then((s) => s.size, () => 0);
  return {
    async month(key) {
      const file = join(dir, `${key}.json`);
      const found = parseMonth(await readBounded(file, 0, MAX_MONTH_BYTES));
      // A ledger shorter than the file says was replaced: nothing it said can be trusted.
      const noted = found === undefined || found.ledger > ledgerSize ? undefined : await notedSince(ledger, found.ledger, ledgerSize);
      const rows = noted === undefined ? new Map<string, unknown>() : (found?.rows ?? new Map<string, unknown>());
      const strings = found?.strings ?? [];
      const jobs = new Map<string, JobUsage>();
      let changed = noted === undefined;
      for (const id of noted ?? []) changed = rows.delete(id) || changed;
      /** The job's row decoded; a row that is not one we wrote is dropped, and its job read from its files again. */
      const decoded = (id: string): JobUsage | undefined => {
        const row = rows.get(id);
        if (row === undefined) return jobs.get(id);
        rows.delete(id);
        const job = decode(row, strings);
        if (job === undefined) changed = true;
        else jobs.set(id, job);
        return job;
      };
      const forget = (id: string): void => {
        const dropped = [rows.delete(id), jobs.delete(id)].includes(true);
        changed ||= dropped;
      };
      return {
        cached: decoded,
        remember(job) {
          rows.delete(job.id);
          jobs.set(job.id, job);
          changed = true;
        },
        forget,
        async save(existing) {
          for (const id of [...rows.keys(), ...jobs.keys()]) if (!existing.has(id)) forget(id);
          if (!changed && ledgerSize - (found?.ledger ?? 0) < LEDGER_LAG_REWRITE) return;
          for (const id of [...rows.keys()]) decoded(id);
          const written = new Map<string, number>();
          const lines = [...jobs.values()].sort((a, b) => (a.id < b.id ? -1 : 1)).map((job) => encode(job, written));
          try {
            await privateDir(dir);
            await writePrivateFile(file, `${JSON.stringify({ v: VERSION, ledger: ledgerSize, strings: [...written.keys()], jobs: lines })}\n`);
          } catch {
            // A read-only or full state directory: the report is right without the index, only slower.
          }
        },
      };
    },
  };
}
