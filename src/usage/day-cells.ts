/**
 * A month's settled jobs summed by cell (local day, model, endpoint, repo), as
 * the usage index keeps them: a report then merges a few hundred cells instead of
 * ten thousand jobs. A local day depends on the time zone, so each stored day
 * carries the instants it ran from and to; a process in a zone where that day
 * starts or ends elsewhere does not use them (the month is summed again).
 */
import { isJobId } from '../coord/job-id-shape.js';
import type { JobUsage, UnreadableLog } from './job-usage.js';
import { cellOf, dayBounds, type CellSum } from './tally.js';
import { addJobToSums, decodeSums, emptySums } from './usage-sums.js';

/** A cell's sums, and its jobs whose logs had unreadable lines: a report names them whether it reads them or the cell. */
export interface SummedCell extends CellSum {
  readonly unreadable: readonly UnreadableLog[];
}

interface Building {
  readonly cell: CellSum['cell'];
  readonly sums: CellSum['sums'];
  readonly promptSpeeds: number[];
  readonly generationSpeeds: number[];
  readonly unreadable: UnreadableLog[];
}

/** The jobs' cells, each with its speeds sorted. */
export function cellSumsOf(jobs: Iterable<JobUsage>): SummedCell[] {
  const cells = new Map<string, Building>();
  for (const job of jobs) {
    const cell = cellOf(job);
    const key = JSON.stringify([cell.day, cell.model, cell.endpoint, cell.repo]);
    let sum = cells.get(key);
    if (sum === undefined) cells.set(key, (sum = { cell, sums: emptySums(), promptSpeeds: [], generationSpeeds: [], unreadable: [] }));
    addJobToSums(sum.sums, job);
    if (job.unreadableLines > 0 || job.halfWritten) sum.unreadable.push({ id: job.id, lines: job.unreadableLines, halfWritten: job.halfWritten });
    sum.promptSpeeds.push(...job.promptTokensPerS);
    sum.generationSpeeds.push(...job.generationTokensPerS);
  }
  const ascending = (a: number, b: number): number => a - b;
  return [...cells.values()].map((c) => ({ ...c, promptSpeeds: c.promptSpeeds.sort(ascending), generationSpeeds: c.generationSpeeds.sort(ascending) }));
}

/** A cell as stored: [day, from, to, model, endpoint, repo, sums, prompt speeds, generation speeds, [[id, lines, half written 0/1]]]. */
export function encodeCell(c: SummedCell): unknown[] {
  const { from, to } = dayBounds(c.cell.day);
  const unreadable = c.unreadable.map((u) => [u.id, u.lines, u.halfWritten ? 1 : 0]);
  return [c.cell.day, from, to, c.cell.model, c.cell.endpoint, c.cell.repo, c.sums, c.promptSpeeds, c.generationSpeeds, unreadable];
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function isSortedSpeeds(xs: unknown): xs is number[] {
  if (!Array.isArray(xs)) return false;
  let last = 0;
  for (const x of xs as unknown[]) {
    // Finite and not below the one before (the first not below 0): NaN and Infinity fail one of the two.
    if (typeof x !== 'number' || !(x >= last) || x === Infinity) return false;
    last = x;
  }
  return true;
}

/** A stored cell, with the instants its day runs from and to (this process's, when the zone fits). */
export interface DayCell extends SummedCell {
  readonly from: number;
  readonly to: number;
}

function decodeUnreadable(stored: unknown): UnreadableLog[] | undefined {
  if (!Array.isArray(stored)) return undefined;
  const jobs: UnreadableLog[] = [];
  for (const entry of stored as unknown[]) {
    const [id, lines, half] = Array.isArray(entry) ? (entry as unknown[]) : [];
    if (typeof id !== 'string' || !isJobId(id) || typeof lines !== 'number' || !Number.isInteger(lines) || lines < 0 || (half !== 0 && half !== 1)) return undefined;
    jobs.push({ id, lines, halfWritten: half === 1 });
  }
  return jobs;
}

export interface StoredCells {
  readonly cells: DayCell[];
  /** Every stored day starts and ends where it does in this process's time zone. */
  readonly zoneFits: boolean;
}

/** Stored cells, or undefined for a list that is not one we wrote. */
export function decodeCells(stored: unknown): StoredCells | undefined {
  if (!Array.isArray(stored)) return undefined;
  const cells: DayCell[] = [];
  const bounds = new Map<string, { from: number; to: number }>();
  let zoneFits = true;
  for (const entry of stored) {
    if (!Array.isArray(entry) || entry.length !== 10) return undefined;
    const [day, from, to, model, endpoint, repo, sums, prompt, generation, unreadableJobs] = entry as unknown[];
    if (typeof day !== 'string' || !DAY.test(day) || typeof model !== 'string' || typeof endpoint !== 'string' || typeof repo !== 'string') return undefined;
    const decoded = decodeSums(sums);
    const unreadable = decodeUnreadable(unreadableJobs);
    if (decoded === undefined || !isSortedSpeeds(prompt) || !isSortedSpeeds(generation) || unreadable === undefined) return undefined;
    let here = bounds.get(day);
    if (here === undefined) bounds.set(day, (here = dayBounds(day)));
    if (here.from !== from || here.to !== to) zoneFits = false;
    cells.push({ cell: { day, model, endpoint, repo }, sums: decoded, promptSpeeds: prompt, generationSpeeds: generation, unreadable, ...here });
  }
  return { cells, zoneFits };
}
