/**
 * One month of the usage index in memory: its jobs' rows (parsed only when one is
 * asked for), its cells (the same jobs summed by local day, trusted only while
 * they sum exactly the jobs a report would read from here), and what changed, to
 * be written back. The file layout and the caller ledger are usage-index.ts's.
 */
import { SortedJobIds } from '../jobs/record/sorted-job-ids.js';
import type { JobUsage } from './job-usage.js';
import { cellSumsOf, encodeCells, type DayCell, type StoredCells } from './day-cells.js';
import type { SpeedLists } from './tally.js';
import { decodeRow, encodeRow } from './index-rows.js';


/** A month file as read: the first line parsed with the cells' speeds, the rows read when first asked for. */
export interface MonthFile {
  readonly ledger: number;
  /** The ids of the jobs it holds. */
  readonly ids: SortedJobIds;
  readonly cells: StoredCells;
  /** The rows' line, read when a job's row is first asked for; undefined if the file was replaced since. */
  body(): Buffer | undefined;
}

/** A month file's parts: its first line's fields, its cells' speeds, its jobs' ids, and their rows. */
export interface MonthContents {
  readonly header: Record<string, unknown>;
  readonly speeds: Buffer;
  readonly ids: SortedJobIds;
  readonly body: unknown;
}

/** The month's cells, when they sum exactly the month's settled jobs on file that are off the slot board. */
export interface MonthCells {
  readonly cells: readonly DayCell[];
  /** Every cell's speeds together. */
  readonly month: SpeedLists;
  /** Jobs on file the cells do not hold (live, new, damaged): the report reads these one by one. */
  readonly uncovered: ReadonlySet<string>;
}

export interface IndexedMonth {
  /** The job's usage as indexed, unless the job is not indexed or its caller.jsonl grew since. */
  cached(id: string): JobUsage | undefined;
  /** Indexes a settled job's usage. */
  remember(job: JobUsage): void;
  /** Drops a job (its record is damaged or gone). */
  forget(id: string): void;
  /** The cells, if true of `onFile` (the month's ids on file, sorted) with `live` on the board; else undefined. */
  cells(onFile: SortedJobIds, live: ReadonlySet<string>): MonthCells | undefined;
  /** What to write back (jobs no longer in `onFile` dropped), or undefined when nothing needs writing. */
  contents(onFile: SortedJobIds, ledger: number, rewriteAnyway: boolean): MonthContents | undefined;
}

/** The rows' line: each job's row by id, or undefined when it is not one we wrote. */
function parseRows(body: Buffer | undefined): { strings: string[]; rows: Map<string, unknown> } | undefined {
  if (body === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  const { strings, jobs } = (typeof json === 'object' && json !== null ? json : {}) as { strings?: unknown; jobs?: unknown };
  if (!Array.isArray(strings) || !strings.every((s) => typeof s === 'string') || !Array.isArray(jobs)) return undefined;
  const rows = new Map<string, unknown>();
  for (const row of jobs) rows.set(String(Array.isArray(row) ? row[0] : ''), row);
  return { strings, rows };
}

/** The on-file ids the stored ids lack, or undefined when a stored id is no longer on file. */
function uncoveredOf(stored: SortedJobIds, onFile: SortedJobIds): Set<string> | undefined {
  const uncovered = new Set<string>();
  if (onFile.text() === stored.text()) return uncovered; // the usual month: one native comparison
  let next = 0;
  for (const id of onFile) {
    const at = stored.at(next);
    if (at === id) next++;
    else if (at !== undefined && at < id) return undefined;
    else uncovered.add(id);
  }
  return next === stored.length ? uncovered : undefined;
}

/** `found` is undefined for a month with no (usable) file; `noted` are the jobs whose caller.jsonl grew since it. */
export function indexedMonth(found: MonthFile | undefined, noted: ReadonlySet<string>): IndexedMonth {
  let parsed: { strings: readonly string[]; rows: Map<string, unknown> } | undefined;
  const jobs = new Map<string, JobUsage>();
  let changed = found === undefined;
  let cellsUsed = false;
  const rows = (): Map<string, unknown> => {
    if (parsed !== undefined) return parsed.rows;
    const read = found === undefined ? undefined : parseRows(found.body());
    // Rows we cannot read leave their jobs to be read from their files; the first line stays true of the jobs it names.
    if (read === undefined) changed = true;
    parsed = read ?? { strings: [], rows: new Map() };
    for (const id of noted) changed = parsed.rows.delete(id) || changed;
    return parsed.rows;
  };
  /** The job's row decoded; a row that is not one we wrote is dropped, and its job read from its files again. */
  const decoded = (id: string): JobUsage | undefined => {
    const row = rows().get(id);
    if (row === undefined) return jobs.get(id);
    rows().delete(id);
    const job = decodeRow(row, parsed?.strings ?? []);
    if (job === undefined) changed = true;
    else jobs.set(id, job);
    return job;
  };
  /** Drops a job's row, without parsing the rows for a job the file does not hold (a live or damaged one, each report). */
  const dropRow = (id: string): boolean => (parsed !== undefined || found?.ids.has(id) === true) && rows().delete(id);
  const forget = (id: string): void => {
    const dropped = [dropRow(id), jobs.delete(id)].includes(true);
    changed ||= dropped;
  };
  return {
    cached: decoded,
    remember(job) {
      dropRow(job.id);
      jobs.set(job.id, job);
      changed = true;
    },
    forget,
    cells(onFile, live) {
      if (found === undefined) return undefined;
      if (!found.cells.zoneFits) {
        // Days of another time zone: the month is summed again from its rows, and written back for this zone.
        changed = true;
        return undefined;
      }
      if ([...noted, ...live].some((id) => found.ids.has(id))) return undefined;
      const uncovered = uncoveredOf(found.ids, onFile);
      if (uncovered === undefined) return undefined;
      cellsUsed = true;
      return { cells: found.cells.cells, month: found.cells.month, uncovered };
    },
    contents(onFile, ledger, rewriteAnyway) {
      // Cells in use were checked against the ids on file; otherwise a job gone from the jobs folder drops out here.
      if (!cellsUsed || parsed !== undefined) {
        const existing = new Set(onFile);
        for (const id of [...rows().keys(), ...jobs.keys()]) if (!existing.has(id)) forget(id);
      }
      if (!changed && !rewriteAnyway) return undefined;
      for (const id of [...rows().keys()]) decoded(id);
      const all = [...jobs.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
      const strings = new Map<string, number>();
      const lines = all.map((job) => encodeRow(job, strings));
      const { days, speeds } = encodeCells(cellSumsOf(all));
      return { header: { ledger, days }, speeds, ids: SortedJobIds.of(all.map((j) => j.id)), body: { strings: [...strings.keys()], jobs: lines } };
    },
  };
}
