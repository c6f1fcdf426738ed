/**
 * A settled month's summaries summed by cell (local day, model, endpoint, repo, caller's model), in
 * `<state>/usage-index/2026-11.cells.json`: a report over whole months adds a few hundred cells instead of parsing
 * ten thousand lines. The cells are used only while the month file (its identity, size and change time) and the
 * month's job ids are those they were summed from, and this process's days start and end where theirs did; otherwise the month's summaries are
 * read, as if there were no cells.
 */
import { createHash } from 'node:crypto';
import { writePrivateFile } from '../coord/private-files.js';
import { readRegularFile } from '../coord/regular-file.js';
import { usageCellsFile } from '../jobs/record/state-paths.js';
import { isJobId } from '../jobs/record/job-id.js';
import { dayBounds } from './calendar.js';
import { callerModelOf, type JobUsage, type UnreadableLog } from './job-usage.js';
import { addJobToSums, emptySums, isCounts, isSums, type UsageSums } from './usage-sums.js';

/** A year of cells is well under 1 MB; a file past this is not ours. */
const MAX_CELLS_BYTES = 16 * 1024 * 1024;

export interface Cell {
  /** The local day, and the instants (ms) it ran from and to in the zone the cell was summed in. */
  readonly day: string;
  readonly start: number;
  readonly end: number;
  readonly model: string;
  readonly endpoint: string;
  readonly repo: string;
  /** '' for jobs without a measured caller cost. */
  readonly callerModel: string;
  readonly sums: UsageSums;
  readonly promptSpeeds: number[];
  readonly generationSpeeds: number[];
  readonly unreadable: UnreadableLog[];
}

/** What the cells were summed from: the month file as it stood (summary-store.ts) and the month's job ids (a pruned job changes them). */
export const monthDigest = (fileStamp: string, ids: readonly string[]): string => createHash('sha256').update(fileStamp).update(ids.join('\n')).digest('base64');

/** The jobs summed by cell. */
export function cellsOf(jobs: Iterable<JobUsage>): Cell[] {
  const cells = new Map<string, Cell>();
  for (const job of jobs) {
    const bounds = dayBounds(Date.parse(job.createdAt));
    const callerModel = callerModelOf(job);
    const key = JSON.stringify([bounds.day, job.model, job.endpoint, job.repo, callerModel]);
    let cell = cells.get(key);
    if (cell === undefined) {
      cell = { ...bounds, model: job.model, endpoint: job.endpoint, repo: job.repo, callerModel, sums: emptySums(), promptSpeeds: [], generationSpeeds: [], unreadable: [] };
      cells.set(key, cell);
    }
    addJobToSums(cell.sums, job);
    cell.promptSpeeds.push(...job.promptTokensPerS);
    cell.generationSpeeds.push(...job.generationTokensPerS);
    if (job.unreadableLines > 0 || job.halfWritten) cell.unreadable.push({ id: job.id, lines: job.unreadableLines, halfWritten: job.halfWritten });
  }
  return [...cells.values()];
}

export async function writeMonthCells(stateDir: string, monthId: string, digest: string, cells: readonly Cell[]): Promise<void> {
  const rows = cells.map((c) => [c.day, c.start, c.end, c.model, c.endpoint, c.repo, c.callerModel, c.sums, c.promptSpeeds, c.generationSpeeds, c.unreadable.map((u) => [u.id, u.lines, u.halfWritten ? 1 : 0])]);
  await writePrivateFile(usageCellsFile(stateDir, monthId), JSON.stringify({ of: digest, cells: rows }));
}

const isText = (x: unknown): x is string => typeof x === 'string';

function cellOf(row: unknown): Cell | undefined {
  if (!Array.isArray(row) || row.length !== 11) return undefined;
  const [day, start, end, model, endpoint, repo, callerModel, sums, promptSpeeds, generationSpeeds, unreadable] = row as unknown[];
  if (!isText(day) || !Number.isSafeInteger(start) || !Number.isSafeInteger(end) || !isText(model) || !isText(endpoint) || !isText(repo) || !isText(callerModel)) return undefined;
  if (!isSums(sums) || !isCounts(promptSpeeds) || !isCounts(generationSpeeds) || !Array.isArray(unreadable)) return undefined;
  const logs: UnreadableLog[] = [];
  for (const u of unreadable as unknown[]) {
    if (!Array.isArray(u) || u.length !== 3 || !isText(u[0]) || !isJobId(u[0]) || !Number.isSafeInteger(u[1]) || (u[2] !== 0 && u[2] !== 1)) return undefined;
    logs.push({ id: u[0], lines: u[1] as number, halfWritten: u[2] === 1 });
  }
  // Summed in another zone (or under other rules for it): its days are not this process's days.
  const here = dayBounds(start as number);
  if (here.day !== day || here.start !== start || here.end !== end) return undefined;
  return { day, start, end, model, endpoint, repo, callerModel, sums, promptSpeeds, generationSpeeds, unreadable: logs };
}

/**
 * The month's cells if they were summed from what has `digest` now and their days are this zone's; undefined
 * otherwise (missing, damaged, stale), when the summaries are read instead.
 */
export async function readMonthCells(stateDir: string, monthId: string, digest: string): Promise<Cell[] | undefined> {
  let json: unknown;
  try {
    json = JSON.parse((await readRegularFile(usageCellsFile(stateDir, monthId), { maxBytes: MAX_CELLS_BYTES })).toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null || (json as { of?: unknown }).of !== digest) return undefined;
  const rows = (json as { cells?: unknown }).cells;
  if (!Array.isArray(rows)) return undefined;
  const cells: Cell[] = [];
  for (const row of rows) {
    const cell = cellOf(row);
    if (cell === undefined) return undefined;
    cells.push(cell);
  }
  return cells;
}
