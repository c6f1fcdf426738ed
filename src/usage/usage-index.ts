/**
 * The usage index: the sums of every settled job (finished, its ticket off the
 * slot board, so its record and requests.jsonl never change again), one file per
 * UTC month of job ids (`<state>/usage-index/2026-12.bin`), so a report over a
 * year of jobs reads a dozen files instead of three per job. A file's first line
 * (JSON) holds the month's cells (src/usage/day-cells.ts) and the sizes of the
 * binary part after it: the cells' speeds as floats (src/usage/stored-speeds.ts),
 * then the month's job ids end to end. A report over whole days reads only these;
 * a last line (JSON) holds each job's row.
 *
 * A job's caller.jsonl still grows after it ended (job_status, job_log, from any
 * process); each append is noted in the caller ledger (src/jobs/record/caller-log.ts).
 * A month file remembers how far into the ledger it had read; the jobs noted
 * since are read again (and the month's cells are not used until it is written
 * again). The ledger's size is taken before any job file is read, so everything
 * a month file says is true as of the offset it stores: two processes writing
 * the same month at once each write a true file (through a rename), and the
 * later one wins. A month file that is missing, unreadable, of another version or
 * damaged is rebuilt from the jobs' own files. Writing is best effort: a
 * read-only state directory only makes reports slower.
 */
import { closeSync, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { privateDir, writePrivateFile } from '../coord/private-files.js';
import { STATE_FILE_FLAGS } from '../coord/regular-file.js';
import { isJobId, JOB_ID_LENGTH } from '../coord/job-id-shape.js';
import { callerLedgerFile, usageIndexDir } from '../jobs/record/state-paths.js';
import { SortedJobIds } from '../jobs/record/sorted-job-ids.js';
import { decodeCells } from './day-cells.js';
import { isCount, isWholeCount } from './index-rows.js';
import { indexedMonth, type IndexedMonth, type MonthContents, type MonthFile } from './indexed-month.js';
import { FLOAT_BYTES } from './stored-speeds.js';

/** 6: a caller cost says whether its turns were shared with other jobs; months of 5 and before are rebuilt. */
const VERSION = 6;
/** A month of a busy year is well under this; a bigger file is not one we wrote. */
const MAX_MONTH_BYTES = 64 * 1024 * 1024;
/** The most of the ledger read at once; a month further behind is rebuilt instead. */
const MAX_LEDGER_READ = 16 * 1024 * 1024;
/** A month file is rewritten once its ledger offset lags this far, so the next read of the ledger stays short. */
const LEDGER_LAG_REWRITE = 64 * 1024;

/** The month file a job id belongs to: `2026-12` from `20261202-…`. */
export const monthOf = (id: string): string => `${id.slice(0, 4)}-${id.slice(4, 6)}`;

/** A month's file in the index folder: `2026-12.bin` (JSON lines around a binary part). */
export const monthFileName = (month: string): string => `${month}.bin`;

export interface SavedMonth extends IndexedMonth {
  /** Writes the month back when it changed; jobs no longer in `onFile` (sorted) are dropped. Never throws. */
  save(onFile: SortedJobIds): Promise<void>;
}

export interface UsageIndex {
  month(key: string): SavedMonth;
}

/** The first read of a month file: its first line (the cells: a few kB) and most months' speeds and ids fit. */
const FIRST_READ_BYTES = 64 * 1024;

const identityOf = (info: Stats): string => `${info.dev} ${info.ino} ${info.size} ${info.mtimeMs}`;

/**
 * Up to `length` bytes of a file from `from` on, with the file's identity, or undefined when it is missing,
 * not a regular file or holds more than `max` bytes from there. Read synchronously: a dozen small files,
 * where the promise round trips cost a report more than the reads.
 */
function readPart(path: string, from: number, length: number, max: number): { bytes: Buffer; identity: string } | undefined {
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
    return { bytes: buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, from)), identity: identityOf(info) };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Exactly `length` bytes of an open file from `from` on, or undefined when it holds fewer. */
function readAt(fd: number, from: number, length: number): Buffer | undefined {
  const bytes = Buffer.allocUnsafe(length);
  return readSync(fd, bytes, 0, length, from) === length ? bytes : undefined;
}

/**
 * A month file's first line parsed with its speeds and ids, or undefined for one that is missing or damaged (then rebuilt).
 * The first line gives the size of the parts after it, so a file cut short, added to or passed through a text tool
 * (which rewrites bytes that are not UTF-8) does not match its size. The rows are read when first asked for, and
 * only from the same file.
 */
function readMonth(path: string): MonthFile | undefined {
  let fd;
  try {
    fd = openSync(path, STATE_FILE_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.size > MAX_MONTH_BYTES) return undefined;
    let start = readAt(fd, 0, Math.min(FIRST_READ_BYTES, info.size));
    if (start !== undefined && start.indexOf(10) === -1) start = readAt(fd, 0, info.size);
    const newline = start?.indexOf(10) ?? -1;
    if (start === undefined || newline === -1) return undefined;
    const json: unknown = JSON.parse(start.toString('utf8', 0, newline));
    if (typeof json !== 'object' || json === null) return undefined;
    const { v, ledger, jobs, days, speeds, rows } = json as { v?: unknown; ledger?: unknown; jobs?: unknown; days?: unknown; speeds?: unknown; rows?: unknown };
    if (v !== VERSION || !isCount(ledger) || !isWholeCount(jobs) || !isWholeCount(speeds) || !isWholeCount(rows)) return undefined;
    // After the first line: the speeds, the job ids end to end, a newline, the rows' line.
    const from = newline + 1;
    const idsAt = from + speeds * FLOAT_BYTES;
    const end = idsAt + jobs * JOB_ID_LENGTH;
    if (info.size !== end + 1 + rows) return undefined;
    const binary = end < start.length ? start.subarray(from, end + 1) : readAt(fd, from, end + 1 - from);
    if (binary?.[end - from] !== 10) return undefined;
    const cells = decodeCells(days, binary.subarray(0, idsAt - from));
    if (cells === undefined) return undefined;
    const identity = identityOf(info);
    const body = (): Buffer | undefined => {
      const read = readPart(path, end + 1, rows, rows);
      return read?.identity === identity ? read.bytes : undefined;
    };
    return { ledger, ids: SortedJobIds.fromJoined(binary.toString('latin1', idsAt - from, end - from)), cells, body };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The file's bytes: the first line padded with spaces so the speeds after it start at a multiple of 8 (read in place). */
function monthBytes(contents: MonthContents): Buffer {
  const rows = Buffer.from(`${JSON.stringify(contents.body)}\n`);
  const sizes = { jobs: contents.ids.length, speeds: contents.speeds.length / FLOAT_BYTES, rows: rows.length };
  const head = JSON.stringify({ v: VERSION, ...contents.header, ...sizes });
  const pad = (FLOAT_BYTES - ((Buffer.byteLength(head) + 1) % FLOAT_BYTES)) % FLOAT_BYTES;
  return Buffer.concat([Buffer.from(`${head}${' '.repeat(pad)}\n`), contents.speeds, Buffer.from(contents.ids.text(), 'latin1'), Buffer.from('\n'), rows]);
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
      const file = join(dir, monthFileName(key));
      const found = readMonth(file);
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
            await writePrivateFile(file, monthBytes(contents));
            // The month as version 2 kept it (all JSON, until 2026-12-04): replaced by this file, so not left behind.
            await unlink(join(dir, `${key}.json`)).catch(() => undefined);
          } catch {
            // A read-only or full state directory: the report is right without the index, only slower.
          }
        },
      };
    },
  };
}
