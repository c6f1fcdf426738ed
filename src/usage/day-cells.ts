/**
 * A month's settled jobs summed by cell (local day, model, endpoint, repo), as
 * the usage index keeps them: a report then merges a few hundred cells instead of
 * ten thousand jobs. A local day depends on the time zone, so each stored day
 * carries the instants it ran from and to; a process in a zone where that day
 * starts or ends elsewhere does not use them (the month is summed again).
 */
import type { JobUsage } from './job-usage.js';
import { cellOf, dayBounds, type CellSum } from './tally.js';
import { addJobToSums, decodeSums, emptySums, encodeSums } from './usage-sums.js';

interface Building {
  readonly cell: CellSum['cell'];
  readonly sums: CellSum['sums'];
  readonly promptSpeeds: number[];
  readonly generationSpeeds: number[];
}

/** The jobs' cells, each with its speeds sorted. */
export function cellSumsOf(jobs: Iterable<JobUsage>): CellSum[] {
  const cells = new Map<string, Building>();
  for (const job of jobs) {
    const cell = cellOf(job);
    const key = JSON.stringify([cell.day, cell.model, cell.endpoint, cell.repo]);
    let sum = cells.get(key);
    if (sum === undefined) cells.set(key, (sum = { cell, sums: emptySums(), promptSpeeds: [], generationSpeeds: [] }));
    addJobToSums(sum.sums, job);
    sum.promptSpeeds.push(...job.promptTokensPerS);
    sum.generationSpeeds.push(...job.generationTokensPerS);
  }
  const ascending = (a: number, b: number): number => a - b;
  return [...cells.values()].map((c) => ({ ...c, promptSpeeds: c.promptSpeeds.sort(ascending), generationSpeeds: c.generationSpeeds.sort(ascending) }));
}

/** A cell as stored: [day, from, to, model, endpoint, repo, sums, prompt speeds, generation speeds]. */
export function encodeCell(c: CellSum): unknown[] {
  const { from, to } = dayBounds(c.cell.day);
  return [c.cell.day, from, to, c.cell.model, c.cell.endpoint, c.cell.repo, encodeSums(c.sums), c.promptSpeeds, c.generationSpeeds];
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

const isSortedSpeeds = (xs: unknown): xs is number[] =>
  Array.isArray(xs) && xs.every((x, i) => typeof x === 'number' && Number.isFinite(x) && x >= 0 && (i === 0 || (xs[i - 1] as number) <= x));

export interface StoredCells {
  readonly cells: CellSum[];
  /** Every stored day starts and ends where it does in this process's time zone. */
  readonly zoneFits: boolean;
}

/** Stored cells, or undefined for a list that is not one we wrote. */
export function decodeCells(stored: unknown): StoredCells | undefined {
  if (!Array.isArray(stored)) return undefined;
  const cells: CellSum[] = [];
  let zoneFits = true;
  for (const entry of stored) {
    if (!Array.isArray(entry) || entry.length !== 9) return undefined;
    const [day, from, to, model, endpoint, repo, sums, prompt, generation] = entry as unknown[];
    if (typeof day !== 'string' || !DAY.test(day) || typeof model !== 'string' || typeof endpoint !== 'string' || typeof repo !== 'string') return undefined;
    const decoded = decodeSums(sums);
    if (decoded === undefined || !isSortedSpeeds(prompt) || !isSortedSpeeds(generation)) return undefined;
    const here = dayBounds(day);
    if (here.from !== from || here.to !== to) zoneFits = false;
    cells.push({ cell: { day, model, endpoint, repo }, sums: decoded, promptSpeeds: prompt, generationSpeeds: generation });
  }
  return { cells, zoneFits };
}
