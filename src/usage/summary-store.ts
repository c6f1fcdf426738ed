/**
 * The usage store, in five lines:
 * - one file per UTC month of job ids, `<state>/usage-index/2026-12.jsonl`, one JSON list a line (summary-line.ts);
 * - a job's summary is appended once it has settled (ended, off the slot board), as of the file's size then (`as_of`);
 * - a fact known later (caller.jsonl grows, an outcome) appends `["<id>","changed"]` (jobs/record/settled-change.ts);
 * - a summary counts unless a change line of its job lies at or past its `as_of`; else, damaged or missing, the job's files are read;
 * - one write a line (processes never interleave), 0600, at most the file's last 64 MB read: the lines before that are older.
 * A month whose jobs all came from summaries is summed by cell as well (month-cells.ts).
 */
import { closeSync, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import { appendPrivateLine } from '../coord/private-files.js';
import { STATE_FILE_FLAGS } from '../coord/regular-file.js';
import { usageMonthFile } from '../jobs/record/state-paths.js';
import { JOB_ID_LENGTH } from '../coord/job-id-shape.js';
import { isJobId } from '../jobs/record/job-id.js';
import { decodeLine, summaryLine } from './summary-line.js';
import type { JobUsage } from './job-usage.js';

/** A month of a busy year is a few MB; a file longer than this is read from here to its end. */
const MAX_READ_BYTES = 64 * 1024 * 1024;
/** Every line starts `["<id>"`: a reader skips lines of other days by it, unparsed. */
const ID_AT = '["'.length;
const ANY_ID = /\d{8}-\d{6}-[0-9a-z]{12}/g;

export interface StoredMonth {
  /** The file's size when read: what a summary appended from the job files read after it is true as of. */
  readonly size: number;
  /** Each job's usable summary; a job missing here is read from its files. */
  readonly summaries: ReadonlyMap<string, JobUsage>;
}

/** A month file's bytes: up to its last {@link MAX_READ_BYTES}, and where they start. */
export interface MonthBytes {
  readonly bytes: Buffer;
  readonly start: number;
}

/** The month file of `monthId`'s month, as far as it is read; undefined when none is there. */
export const readMonthBytes = (stateDir: string, monthId: string): MonthBytes | undefined => readTail(usageMonthFile(stateDir, monthId));

/**
 * The month file as it stands, without reading it: inode, size and change time in ns (an append or an edit changes
 * them); undefined when no regular file is there. Taken before the bytes are read, so a write in between makes
 * what is summed from them stale, never wrongly current.
 */
export function monthFileStamp(stateDir: string, monthId: string): string | undefined {
  const info = lstatSync(usageMonthFile(stateDir, monthId), { bigint: true, throwIfNoEntry: false });
  return info?.isFile() === true ? `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}` : undefined;
}

/** Up to the last {@link MAX_READ_BYTES} of a regular file, and where they start; undefined when none is there. */
function readTail(path: string): MonthBytes | undefined {
  let fd;
  try {
    fd = openSync(path, STATE_FILE_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return undefined;
    const start = Math.max(0, info.size - MAX_READ_BYTES);
    const bytes = Buffer.allocUnsafe(info.size - start);
    return { bytes: bytes.subarray(0, readSync(fd, bytes, 0, bytes.length, start)), start };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * A month file's bytes, read for the jobs with ids in [from, to) (undefined: no bound): lines of
 * other ids are not parsed (a status line reads today's of a month). Any line that is not a summary (a change
 * line, or one damaged) counts as a change of every job it names.
 */
export function readStoredMonth(found: MonthBytes | undefined, from?: string, to?: string): StoredMonth {
  if (found === undefined) return { size: 0, summaries: new Map() };
  const { bytes, start } = found;
  const latest = new Map<string, { job: JobUsage; asOf: number }>();
  const changedAt = new Map<string, number>();
  const bounded = from !== undefined || to !== undefined;
  // From the tail's first whole line; a last line without its newline is still being written.
  let at = start === 0 ? 0 : bytes.indexOf(10) + 1;
  for (let nl = bytes.indexOf(10, at); nl !== -1; at = nl + 1, nl = bytes.indexOf(10, at)) {
    if (bounded) {
      const id = bytes.toString('latin1', at + ID_AT, at + ID_AT + JOB_ID_LENGTH);
      if (((from !== undefined && id < from) || (to !== undefined && id >= to)) && bytes.toString('latin1', at, at + ID_AT) === '["' && isJobId(id)) continue;
    }
    const line = bytes.toString('utf8', at, nl);
    const read = decodeLine(line);
    if (read === undefined || 'changed' in read) for (const id of read?.changed ?? line.match(ANY_ID) ?? []) changedAt.set(id, start + at);
    // A summary true as of a size past its own place is not one we wrote there (the file was replaced or edited).
    else if (read.asOf > start + at) changedAt.set(read.job.id, start + at);
    else latest.set(read.job.id, { job: read.job, asOf: read.asOf });
  }
  const summaries = new Map<string, JobUsage>();
  for (const [id, { job, asOf }] of latest) {
    // Lines before the tail read are unseen: a summary as of a point before them may have been made stale there.
    if (asOf >= start && !((changedAt.get(id) ?? -1) >= asOf)) summaries.set(id, job);
  }
  return { size: start + bytes.length, summaries };
}

/** Appends a settled job's summary, true as of the month file's size `asOf` (read before the job's files were). */
export async function appendSummary(stateDir: string, job: JobUsage, asOf: number): Promise<void> {
  await appendPrivateLine(usageMonthFile(stateDir, job.id), summaryLine(job, asOf));
}
