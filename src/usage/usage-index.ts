/**
 * The usage index: the sums of every settled job (finished, its ticket off the
 * slot board, so its record and requests.jsonl never change again), one file per
 * UTC month of job ids (`<state>/usage-index/2026-12.json`), so a report over a
 * year of jobs reads a dozen files instead of three per job. A file's first line
 * holds the month's job ids and their cells (src/usage/day-cells.ts): a report
 * over whole days reads only that line; its second line holds each job's row.
 *
 * A job's caller.jsonl still grows after it ended (job_status, job_log, from any
 * process); each append is noted in the caller ledger (src/jobs/caller-log.ts).
 * A month file remembers how far into the ledger it had read; the jobs noted
 * since are read again (and the month's cells are not used until it is written
 * again). The ledger's size is taken before any job file is read, so everything
 * a month file says is true as of the offset it stores: two processes writing
 * the same month at once each write a true file (through a rename), and the
 * later one wins. A month file that is missing, unreadable, of another version or
 * damaged is rebuilt from the jobs' own files. Writing is best effort: a
 * read-only state directory only makes reports slower.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { privateDir, writePrivateFile } from '../coord/private-files.js';
import { STATE_FILE_FLAGS } from '../coord/regular-file.js';
import { isJobId } from '../coord/job-id-shape.js';
import { callerLedgerFile, usageIndexDir } from '../jobs/caller-log.js';
import { decodeCells } from './day-cells.js';
import { isCount } from './index-rows.js';
import { indexedMonth, type IndexedMonth, type MonthFile } from './indexed-month.js';

const VERSION = 2;
/** A month of a busy year is well under this; a bigger file is not one we wrote. */
const MAX_MONTH_BYTES = 64 * 1024 * 1024;
/** The most of the ledger read at once; a month further behind is rebuilt instead. */
const MAX_LEDGER_READ = 16 * 1024 * 1024;
/** A month file is rewritten once its ledger offset lags this far, so the next read of the ledger stays short. */
const LEDGER_LAG_REWRITE = 64 * 1024;

/** The month file a job id belongs to: `2026-12` from `20261202-…`. */
export const monthOf = (id: string): string => `${id.slice(0, 4)}-${id.slice(4, 6)}`;

export interface SavedMonth extends IndexedMonth {
  /** Writes the month back when it changed; jobs no longer in `onFile` (sorted) are dropped. Never throws. */
  save(onFile: readonly string[]): Promise<void>;
}

export interface UsageIndex {
  month(key: string): SavedMonth;
}

/** The first read of a month file: most first lines fit (a longer one costs a second read, of the whole file). */
const FIRST_READ_BYTES = 64 * 1024;

/**
 * Up to `length` bytes of a file from `from` on, with the file's identity, or undefined when it is missing,
 * not a regular file or holds more than `max` bytes from there. Read synchronously: a dozen small files,
 * where the promise round trips cost a report more than the reads.
 */
function readPart(path: string, from: number, length: number, max: number): { bytes: Buffer; size: number; identity: string } | undefined {
  let fd;
  try {
    fd = openSync(path, STATE_FILE_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.size - from > max || info.size < from) return undefined;
    const buffer = Buffer.allocUnsafe(Math.min(length, info.size - from));
    const bytes = buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, from));
    return { bytes, size: info.size, identity: `${info.dev} ${info.ino} ${info.size} ${info.mtimeMs}` };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * A month file's first line, and a way to its second that reads it only if the file is still the one read
 * (rows of another writer's file are not mixed with this one's cells). Most reports never read the second.
 */
function readMonth(path: string): { first: Buffer; rest: () => Buffer | undefined } | undefined {
  const start = readPart(path, 0, FIRST_READ_BYTES, MAX_MONTH_BYTES);
  if (start === undefined) return undefined;
  let newline = start.bytes.indexOf(10);
  let bytes = start.bytes;
  if (newline === -1 && bytes.length < start.size) {
    const whole = readPart(path, 0, MAX_MONTH_BYTES, MAX_MONTH_BYTES);
    if (whole === undefined || whole.identity !== start.identity) return undefined;
    [bytes, newline] = [whole.bytes, whole.bytes.indexOf(10)];
  }
  if (newline === -1) return undefined;
  const rest = (): Buffer | undefined => {
    const after = readPart(path, newline + 1, MAX_MONTH_BYTES, MAX_MONTH_BYTES);
    return after?.identity === start.identity ? after.bytes : undefined;
  };
  return { first: bytes.subarray(0, newline), rest };
}

/** A month file's first line parsed, or undefined for one that is missing or damaged (then rebuilt). */
function parseMonth(read: ReturnType<typeof readMonth>): MonthFile | undefined {
  if (read === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(read.first.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null) return undefined;
  const { v, ledger, ids, days } = json as { v?: unknown; ledger?: unknown; ids?: unknown; days?: unknown };
  if (v !== VERSION || !isCount(ledger) || typeof ids !== 'string') return undefined;
  const cells = decodeCells(days);
  return cells === undefined ? undefined : { ledger, ids, cells, body: read.rest };
}

/** The job ids noted in the ledger from `from` on (a line cut short by a writer still at it is no id). */
function notedSince(ledger: string, from: number, size: number): Set<string> | undefined {
  if (from === size) return new Set();
  const bytes = readPart(ledger, from, MAX_LEDGER_READ, MAX_LEDGER_READ)?.bytes;
  if (bytes === undefined) return undefined;
  return new Set(bytes.toString('utf8').split('\n').filter(isJobId));
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
    month(key) {
      const file = join(dir, `${key}.json`);
      const found = parseMonth(readMonth(file));
      // A ledger shorter than the file says was replaced: nothing it said can be trusted.
      const noted = found === undefined || found.ledger > ledgerSize ? undefined : notedSince(ledger, found.ledger, ledgerSize);
      const month = indexedMonth(noted === undefined ? undefined : found, noted ?? new Set());
      const lagging = ledgerSize - (found?.ledger ?? 0) >= LEDGER_LAG_REWRITE;
      return {
        ...month,
        async save(onFile) {
          const contents = month.contents(onFile, ledgerSize, lagging);
          if (contents === undefined) return;
          try {
            await privateDir(dir);
            await writePrivateFile(file, `${JSON.stringify({ v: VERSION, ...contents.header })}\n${JSON.stringify(contents.body)}\n`);
          } catch {
            // A read-only or full state directory: the report is right without the index, only slower.
          }
        },
      };
    },
  };
}
