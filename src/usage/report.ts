/**
 * The usage report over every job in the state directory, whichever process ran
 * it: a month of ids at a time, settled jobs from their summaries in the usage
 * store (summary-store.ts) and the others from their files, a few at a time, each
 * job's facts added to the tally and dropped. Damaged records and unreadable log
 * lines are named in the report, never fatal.
 */
import { dirname } from 'node:path';
import type { PriceSettings } from '../config/price-settings.js';
import { PRICES_AS_OF, PRICES_SOURCE } from '../config/prices.js';
import { createSlotBoard } from '../coord/slot-board.js';
import { isLocalAgentsError } from '../errors.js';
import { jobIdStamp } from '../jobs/record/job-id.js';
import { FINISHED } from '../jobs/record/job-record.js';
import { damagedRecord, forEachLimited, type DamagedRecord, type JobStore } from '../jobs/record/job-store.js';
import { readJobUsage, type JobUsage, type UnreadableLog } from './job-usage.js';
import { cellsOf, monthDigest, readMonthCells, writeMonthCells, type Cell } from './month-cells.js';
import { appendSummary, monthFileStamp, readMonthBytes, readStoredMonth } from './summary-store.js';
import { createUsageTally, type Grouping, type UsageRow } from './tally.js';
import type { TranscriptReader } from './transcripts/caller-cost.js';
import { withCallerCost } from './transcripts/settle-cost.js';
import { awaitsRecentFate, refreshOutcomes } from '../jobs/git/outcome-check.js';
import type { ModelKept } from '../jobs/record/outcome.js';

/** Jobs read at once: thousands of parallel opens run out of file descriptors. */
const READ_CONCURRENCY = 16;
const DAY_MS = 86_400_000;

export interface UsageWindow {
  /** Jobs created at or after this instant. */
  readonly since?: Date | undefined;
  /** Jobs created before this instant. */
  readonly until?: Date | undefined;
}

export interface UsageReport {
  readonly by: Grouping;
  readonly window: { readonly since: string | undefined; readonly until: string | undefined };
  readonly rows: readonly UsageRow[];
  readonly total: UsageRow;
  /** Where the published prices come from, and as of when; `defaults.prices` in models.yaml overrides them. */
  readonly prices: { readonly asOf: string; readonly source: string };
  readonly damaged: readonly DamagedRecord[];
  readonly unreadable: readonly UnreadableLog[];
  /** Per model (whatever the grouping), what became of its jobs' work in the window: kept, lost, unknown. */
  readonly keptByModel: readonly ModelKept[];
}

/**
 * Ids sort by their UTC creation time: those a day or more outside the window are skipped unread,
 * by comparing strings (the status line runs this over a year of ids every refresh).
 */
function idBounds(window: UsageWindow): { from: string | undefined; to: string | undefined } {
  const from = window.since === undefined ? undefined : jobIdStamp(new Date(window.since.getTime() - DAY_MS));
  const to = window.until === undefined ? undefined : jobIdStamp(new Date(window.until.getTime() + DAY_MS + 1000));
  return { from, to };
}

function inWindow(createdAt: string, window: UsageWindow): boolean {
  const at = Date.parse(createdAt);
  return (window.since === undefined || at >= window.since.getTime()) && (window.until === undefined || at < window.until.getTime());
}

/** The ids of each UTC month (their first six digits), in order. */
function byMonth(ids: readonly string[]): string[][] {
  const months: string[][] = [];
  for (const id of ids) {
    const last = months.at(-1);
    if (last !== undefined && (last[0] as string).startsWith(id.slice(0, 6))) last.push(id);
    else months.push([id]);
  }
  return months;
}

/** Looking up callers' costs in their transcripts (a report does; the status line, which only reads, does not). */
export interface CallerLookup {
  readonly reader: TranscriptReader;
  readonly now: Date;
}

/** Where a report's jobs go: one at a time, or (for any grouping but by job) a settled month's cells at once. */
export interface UsageSink {
  job(job: JobUsage): void;
  cell?(cell: Cell): void;
}

const cellInWindow = (cell: Cell, window: UsageWindow): boolean =>
  (window.since === undefined || cell.start >= window.since.getTime()) && (window.until === undefined || cell.end <= window.until.getTime());

/**
 * Gives `sink` every job in the window, a month at a time; returns what could not be read. A settled job
 * (finished, off the slot board, no fate git may still find in the last 30 days) comes from its summary when the
 * store has a usable one, and gets one otherwise. A month whose jobs all came from summaries gets its cells,
 * and a sink that takes cells is given those while they hold (month-cells.ts).
 */
export async function forEachJobUsage(store: JobStore, window: UsageWindow, sink: UsageSink, lookup?: CallerLookup): Promise<{ damaged: DamagedRecord[]; unreadable: UnreadableLog[] }> {
  const stateDir = dirname(store.root);
  const live = new Set((await createSlotBoard(stateDir).read()).tickets.map((t) => t.job));
  const { from, to } = idBounds(window);
  // Only the ids in the window become strings: the status line wants today's few of a year's 10,000.
  const ids = (await store.ids()).between(from, to).toArray();
  const damaged: DamagedRecord[] = [];
  const unreadable: UnreadableLog[] = [];
  const deliver = (job: JobUsage): void => {
    if (!inWindow(job.createdAt, window)) return;
    if (job.unreadableLines > 0 || job.halfWritten) unreadable.push({ id: job.id, lines: job.unreadableLines, halfWritten: job.halfWritten });
    sink.job(job);
  };
  for (const month of byMonth(ids)) {
    // The month file's stamp before its bytes: cells summed from bytes written after it are stale, never current.
    const stamp = sink.cell === undefined || month.some((id) => live.has(id)) ? undefined : monthFileStamp(stateDir, month[0] as string);
    const digest = stamp === undefined ? undefined : monthDigest(stamp, month);
    const cells = digest === undefined ? undefined : await readMonthCells(stateDir, month[0] as string, digest);
    if (cells !== undefined && sink.cell !== undefined && cells.every((c) => cellInWindow(c, window))) {
      for (const cell of cells) {
        unreadable.push(...cell.unreadable);
        sink.cell(cell);
      }
      continue;
    }
    // Read before any job file of the month: a summary made from those files is true as of this size.
    const stored = readStoredMonth(readMonthBytes(stateDir, month[0] as string), from, to);
    const toRead: { id: string; before: JobUsage | undefined }[] = [];
    const summed: JobUsage[] = [];
    for (const id of month) {
      const job = live.has(id) ? undefined : stored.summaries.get(id);
      // A summary whose caller cost may still be measured is read again by a report that looks costs up.
      if (job === undefined || (lookup !== undefined && !job.caller.settled)) toRead.push({ id, before: job });
      else {
        summed.push(job);
        deliver(job);
      }
    }
    // Cells of the whole month, from summaries alone, for the next report (a bounded window reads only part of it).
    if (digest !== undefined && toRead.length === 0 && from === undefined && to === undefined) {
      await writeMonthCells(stateDir, month[0] as string, digest, cellsOf(summed)).catch(() => undefined);
    }
    await forEachLimited(toRead, READ_CONCURRENCY, async ({ id, before }) => {
      let job: JobUsage;
      try {
        let record = await store.read(id);
        if (!inWindow(record.created_at, window)) return;
        // A report (not the status line) records what git can tell now of the job's work (src/jobs/git/outcome-check.ts).
        if (lookup !== undefined) record = (await refreshOutcomes(store, [record], 'localagents usage'))[0] ?? record;
        job = await readJobUsage(record, store.paths(id));
        if (lookup !== undefined) job = await withCallerCost(job, record, store, lookup.reader, lookup.now);
        // Kept once settled; a kept one again only once its caller cost has settled too. A recent job whose fate
        // git may still find is read again each time, not kept.
        const settled = FINISHED.has(record.status) && !live.has(id) && !awaitsRecentFate(record, lookup?.now ?? new Date());
        if (settled && (before === undefined || (job.caller.settled && !before.caller.settled))) {
          // A read-only or full state directory: the report is right without the store, only slower.
          await appendSummary(stateDir, job, stored.size).catch(() => undefined);
        }
      } catch (err) {
        // A folder without job.json is a job being created (or removed) right now: nothing to count yet.
        if (isLocalAgentsError(err) && err.code === 'unknown_job') return;
        damaged.push(damagedRecord(id, store.paths(id).record, err));
        return;
      }
      deliver(job);
    });
  }
  damaged.sort((a, b) => a.id.localeCompare(b.id));
  unreadable.sort((a, b) => a.id.localeCompare(b.id));
  return { damaged, unreadable };
}

export async function buildUsageReport(store: JobStore, settings: PriceSettings, by: Grouping, window: UsageWindow, lookup: CallerLookup): Promise<UsageReport> {
  const tally = createUsageTally(by, settings.prices);
  const models = by === 'model' ? tally : createUsageTally('model', settings.prices);
  const tallies = models === tally ? [tally] : [tally, models];
  const sink: UsageSink = {
    job: (job) => tallies.forEach((t) => t.add(job)),
    ...(by === 'job' ? {} : { cell: (cell: Cell) => tallies.forEach((t) => t.addCell(cell)) }),
  };
  const { damaged, unreadable } = await forEachJobUsage(store, window, sink, lookup);
  return {
    keptByModel: models.outcomes().map(({ key, ...outcomes }) => ({ model: key, ...outcomes })),
    by,
    window: { since: window.since?.toISOString(), until: window.until?.toISOString() },
    rows: tally.rows(),
    total: tally.total(),
    prices: { asOf: PRICES_AS_OF, source: PRICES_SOURCE },
    damaged,
    unreadable,
  };
}
