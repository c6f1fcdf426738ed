/**
 * A month's settled jobs summed by cell (local day, model, endpoint, repo), as
 * the usage index keeps them: a report then merges a few hundred cells instead of
 * ten thousand jobs. A local day depends on the time zone, so each stored day
 * carries the instants it ran from and to; a process in a zone where that day
 * starts or ends elsewhere does not use them (the month is summed again).
 */
import { isJobId } from '../coord/job-id-shape.js';
import type { JobUsage, UnreadableLog } from './job-usage.js';
import { cellOf, dayBounds, type CellSum, type SpeedLists } from './tally.js';
import { concatenated, type SortedSpeeds } from './sorted-median.js';
import { isWholeCount } from './index-rows.js';
import { decodeSpeeds, encodeSpeeds } from './stored-speeds.js';
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

const ascending = (a: number, b: number): number => a - b;

/** The jobs' cells, each with its speeds sorted. */
export function cellSumsOf(jobs: Iterable<JobUsage>): SummedCell[] {
  const cells = new Map<string, Building>();
  for (const job of jobs) {
    const cell = cellOf(job);
    const key = JSON.stringify([cell.day, cell.model, cell.endpoint, cell.repo, cell.callerModel]);
    let sum = cells.get(key);
    if (sum === undefined) cells.set(key, (sum = { cell, sums: emptySums(), promptSpeeds: [], generationSpeeds: [], unreadable: [] }));
    addJobToSums(sum.sums, job);
    if (job.unreadableLines > 0 || job.halfWritten) sum.unreadable.push({ id: job.id, lines: job.unreadableLines, halfWritten: job.halfWritten });
    sum.promptSpeeds.push(...job.promptTokensPerS);
    sum.generationSpeeds.push(...job.generationTokensPerS);
  }
  return [...cells.values()].map((c) => ({ ...c, promptSpeeds: c.promptSpeeds.sort(ascending), generationSpeeds: c.generationSpeeds.sort(ascending) }));
}

/**
 * The month's cells as stored: each cell as [day, from, to, model, endpoint, repo, sums, [prompt speeds,
 * generation speeds] (how many), [[id, lines, half written 0/1]], caller model ('' for none measured)], and as floats (stored-speeds.ts) each cell's
 * prompt then generation speeds, then all the month's prompt speeds and all its generation speeds.
 */
export function encodeCells(cells: readonly SummedCell[]): { days: unknown[]; speeds: Buffer } {
  const days = cells.map((c) => {
    const { from, to } = dayBounds(c.cell.day);
    const unreadable = c.unreadable.map((u) => [u.id, u.lines, u.halfWritten ? 1 : 0]);
    return [c.cell.day, from, to, c.cell.model, c.cell.endpoint, c.cell.repo, c.sums, [c.promptSpeeds.length, c.generationSpeeds.length], unreadable, c.cell.callerModel];
  });
  const month = (of: (c: SummedCell) => SortedSpeeds): Float64Array => concatenated(cells.map(of)).sort();
  const lists = [...cells.flatMap((c) => [c.promptSpeeds, c.generationSpeeds]), month((c) => c.promptSpeeds), month((c) => c.generationSpeeds)];
  return { days, speeds: encodeSpeeds(lists) };
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

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
    if (typeof id !== 'string' || !isJobId(id) || !isWholeCount(lines) || (half !== 0 && half !== 1)) return undefined;
    jobs.push({ id, lines, halfWritten: half === 1 });
  }
  return jobs;
}

export interface StoredCells {
  readonly cells: DayCell[];
  /** Every cell's speeds together: a row that takes all the month's cells takes one list, not one a day. */
  readonly month: SpeedLists;
  /** Every stored day starts and ends where it does in this process's time zone. */
  readonly zoneFits: boolean;
}

/** How many speeds each stored cell has (prompt, generation), then the month's: their sums; undefined if not counts. */
function speedCounts(stored: readonly unknown[]): number[] | undefined {
  const counts: number[] = [];
  let prompts = 0;
  let generations = 0;
  for (let i = 0; i < stored.length; i++) {
    const entry: unknown = stored[i];
    const both: unknown = Array.isArray(entry) ? entry[7] : undefined;
    const prompt: unknown = Array.isArray(both) && both.length === 2 ? both[0] : undefined;
    const generation: unknown = Array.isArray(both) ? both[1] : undefined;
    if (!isWholeCount(prompt) || !isWholeCount(generation)) return undefined;
    counts.push(prompt, generation);
    prompts += prompt;
    generations += generation;
  }
  counts.push(prompts, generations);
  return counts;
}

/** Stored cells, or undefined for cells or speeds that are not ones we wrote. */
export function decodeCells(stored: unknown, speeds: Buffer): StoredCells | undefined {
  if (!Array.isArray(stored)) return undefined;
  const counts = speedCounts(stored);
  const lists = counts === undefined ? undefined : decodeSpeeds(speeds, counts);
  if (lists === undefined) return undefined;
  const cells: DayCell[] = [];
  const bounds = new Map<string, { from: number; to: number }>();
  let zoneFits = true;
  // Fields by index, not by destructuring: until the code is optimised, that allocates at every field of ~400 cells.
  for (let i = 0; i < stored.length; i++) {
    const entry: unknown = stored[i];
    if (!Array.isArray(entry) || entry.length !== 10) return undefined;
    const day: unknown = entry[0];
    const model: unknown = entry[3];
    const endpoint: unknown = entry[4];
    const repo: unknown = entry[5];
    const callerModel: unknown = entry[9];
    if (typeof day !== 'string' || !DAY.test(day) || typeof model !== 'string' || typeof endpoint !== 'string' || typeof repo !== 'string') return undefined;
    if (typeof callerModel !== 'string') return undefined;
    const sums = decodeSums(entry[6]);
    const unreadable = decodeUnreadable(entry[8]);
    if (sums === undefined || unreadable === undefined) return undefined;
    let here = bounds.get(day);
    if (here === undefined) bounds.set(day, (here = dayBounds(day)));
    if (here.from !== entry[1] || here.to !== entry[2]) zoneFits = false;
    cells.push({ cell: { day, model, endpoint, repo, callerModel }, sums, unreadable, from: here.from, to: here.to, promptSpeeds: lists[2 * i] as Float64Array, generationSpeeds: lists[2 * i + 1] as Float64Array });
  }
  return { cells, month: { promptSpeeds: lists[2 * stored.length] as Float64Array, generationSpeeds: lists[2 * stored.length + 1] as Float64Array }, zoneFits };
}
