/**
 * The usage report over every job in the state directory, whichever process ran
 * it: read a month of ids at a time, settled jobs from the usage index and the
 * others a few files at a time, each job's facts added to the tally and dropped.
 * Damaged records and unreadable log lines are named in the report, never fatal.
 */
import { dirname } from 'node:path';
import type { PriceSettings } from '../config/price-settings.js';
import { PRICES_AS_OF, PRICES_SOURCE } from '../config/prices.js';
import { createSlotBoard } from '../coord/slot-board.js';
import { isLocalAgentsError } from '../errors.js';
import { jobIdStamp } from '../jobs/record/job-id.js';
import { FINISHED } from '../jobs/record/job-record.js';
import { damagedRecord, forEachLimited, type DamagedRecord, type JobStore } from '../jobs/record/job-store.js';
import type { SortedJobIds } from '../jobs/record/sorted-job-ids.js';
import { readJobUsage, type JobUsage, type UnreadableLog } from './job-usage.js';
import type { DayCell } from './day-cells.js';
import type { IndexedMonth } from './indexed-month.js';
import { createUsageTally, localDay, type CellBatch, type Grouping, type SpeedLists, type UsageRow } from './tally.js';
import type { TranscriptReader } from './transcripts/caller-cost.js';
import { withCallerCost } from './transcripts/settle-cost.js';
import { monthOf, openUsageIndex } from './usage-index.js';
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
function idsMaybeIn(ids: SortedJobIds, window: UsageWindow): SortedJobIds {
  const from = window.since === undefined ? undefined : jobIdStamp(new Date(window.since.getTime() - DAY_MS));
  const to = window.until === undefined ? undefined : jobIdStamp(new Date(window.until.getTime() + DAY_MS + 1000));
  return ids.between(from, to);
}

function inWindow(createdAt: string, window: UsageWindow): boolean {
  const at = Date.parse(createdAt);
  return (window.since === undefined || at >= window.since.getTime()) && (window.until === undefined || at < window.until.getTime());
}

/** The month file of each run of sorted ids, in order: `2026-12` and the ids that start `202612`. */
function byMonth(ids: SortedJobIds): Map<string, SortedJobIds> {
  const months = new Map<string, SortedJobIds>();
  for (let i = 0; i < ids.length; ) {
    const yyyymm = (ids.at(i) as string).slice(0, 6);
    const of = ids.between(yyyymm, `${yyyymm}~`);
    months.set(monthOf(yyyymm), of);
    i += of.length;
  }
  return months;
}

/** Where the jobs of a report go: each job, or (without a `job` grouping) cells of settled jobs summed at once. */
export interface UsageSink {
  add(job: JobUsage): void;
  readonly addCells?: ((batch: CellBatch) => void) | undefined;
}

/** A month read from its cells: those of days wholly in the window, and what must be read job by job. */
interface MonthPlan {
  readonly whole: readonly DayCell[];
  /** All the month's speeds, when the report takes every one of its cells whole. */
  readonly merged: SpeedLists | undefined;
  /** Days the window starts or ends inside: their jobs are counted one by one. */
  readonly cutDays: ReadonlySet<string>;
  /** Jobs on file the cells do not hold. */
  readonly uncovered: ReadonlySet<string>;
  /** Jobs the cells hold that may be of a cut day (by their ids' time). */
  readonly nearCut: ReadonlySet<string>;
}

function planMonth(month: IndexedMonth, onFile: SortedJobIds, live: ReadonlySet<string>, window: UsageWindow): MonthPlan | undefined {
  const found = month.cells(onFile, live);
  if (found === undefined) return undefined;
  const [since, until] = [window.since?.getTime() ?? -Infinity, window.until?.getTime() ?? Infinity];
  const whole: DayCell[] = [];
  const cut = new Map<string, string[]>();
  for (const cell of found.cells) {
    const { from, to } = cell;
    if (to <= since || from >= until) continue;
    if (since <= from && to <= until) whole.push(cell);
    else if (!cut.has(cell.cell.day)) cut.set(cell.cell.day, idsMaybeIn(onFile, { since: new Date(from), until: new Date(to) }).toArray());
  }
  const nearCut = new Set([...cut.values()].flat().filter((id) => !found.uncovered.has(id)));
  const merged = whole.length === found.cells.length ? found.month : undefined;
  return { whole, merged, cutDays: new Set(cut.keys()), uncovered: found.uncovered, nearCut };
}

/** Looking up callers' costs in their transcripts (a report does; the status line, which only reads, does not). */
export interface CallerLookup {
  readonly reader: TranscriptReader;
  readonly now: Date;
}

/**
 * Calls `sink` for every job in the window, a month at a time; returns what could not be read. A settled job
 * (finished, off the slot board, its caller cost on file, and no fate git may still find in the last 30 days) comes
 * from the usage index when it is there, and goes into it otherwise.
 */
export async function forEachJobUsage(store: JobStore, window: UsageWindow, sink: UsageSink, lookup?: CallerLookup): Promise<{ damaged: DamagedRecord[]; unreadable: UnreadableLog[] }> {
  // In this order: the index (the ledger's size), the board, then the jobs' own files (src/usage/usage-index.ts).
  const index = await openUsageIndex(store.root);
  const live = new Set((await createSlotBoard(dirname(store.root)).read()).tickets.map((t) => t.job));
  const all = await store.ids();
  const damaged: DamagedRecord[] = [];
  const unreadable: UnreadableLog[] = [];
  for (const [key, ids] of byMonth(idsMaybeIn(all, window))) {
    const month = index.month(key);
    // The ids on file of this month (they start with its yyyymm): a month's jobs that are gone drop out of its file.
    const onFile = all.between(key.replace('-', ''), `${key.replace('-', '')}~`);
    const plan = sink.addCells === undefined ? undefined : planMonth(month, onFile, live, window);
    /** In the window, and not already in a cell the report takes whole. */
    const counted = (job: JobUsage): boolean =>
      inWindow(job.createdAt, window) && (plan === undefined || plan.uncovered.has(job.id) || plan.cutDays.has(localDay(new Date(job.createdAt))));
    const deliver = (job: JobUsage): void => {
      if (!counted(job)) return;
      if (job.unreadableLines > 0 || job.halfWritten) unreadable.push({ id: job.id, lines: job.unreadableLines, halfWritten: job.halfWritten });
      sink.add(job);
    };
    // With cells, only the jobs they lack and those of cut days (two sets apart): small, the month's ids are not.
    const toRead = plan === undefined ? ids.toArray() : [...plan.uncovered, ...plan.nearCut].filter((id) => ids.has(id)).sort();
    await forEachLimited(toRead, READ_CONCURRENCY, async (id) => {
      const indexed = live.has(id) || plan?.uncovered.has(id) === true ? undefined : month.cached(id);
      if (indexed !== undefined) return deliver(indexed);
      let job: JobUsage;
      try {
        let record = await store.read(id);
        if (!inWindow(record.created_at, window)) return;
        // A report (not the status line) records what git can tell now of the job's work (src/jobs/git/outcome-check.ts).
        if (lookup !== undefined) record = (await refreshOutcomes(store, [record], 'localagents usage'))[0] ?? record;
        job = await readJobUsage(record, store.paths(id));
        if (lookup !== undefined) job = await withCallerCost(job, record, store, lookup.reader, lookup.now);
        // A recent job whose fate git may still find is read again each time, not kept.
        const settled = FINISHED.has(record.status) && !live.has(id) && job.caller.settled && !awaitsRecentFate(record, lookup?.now ?? new Date());
        if (settled) month.remember(job);
      } catch (err) {
        month.forget(id);
        // A folder without job.json is a job being created (or removed) right now: nothing to count yet.
        if (isLocalAgentsError(err) && err.code === 'unknown_job') return;
        damaged.push(damagedRecord(id, store.paths(id).record, err));
        return;
      }
      deliver(job);
    });
    if (plan !== undefined) {
      sink.addCells?.({ cells: plan.whole, merged: plan.merged });
      for (const cell of plan.whole) unreadable.push(...cell.unreadable);
    }
    await month.save(onFile);
  }
  damaged.sort((a, b) => a.id.localeCompare(b.id));
  unreadable.sort((a, b) => a.id.localeCompare(b.id));
  return { damaged, unreadable };
}

export async function buildUsageReport(store: JobStore, settings: PriceSettings, by: Grouping, window: UsageWindow, lookup: CallerLookup): Promise<UsageReport> {
  const tally = createUsageTally(by, settings.prices);
  const models = by === 'model' ? tally : createUsageTally('model', settings.prices);
  const addCells = tally.addCells === undefined ? undefined : (batch: CellBatch): void => [tally, models].forEach((t) => t.addCells?.(batch));
  const sink: UsageSink = models === tally ? tally : { add: (job) => [tally, models].forEach((t) => t.add(job)), addCells };
  const { damaged, unreadable } = await forEachJobUsage(store, window, sink, lookup);
  return {
    keptByModel: models.rows().map((r) => ({ model: r.key, ...r.outcomes })),
    by,
    window: { since: window.since?.toISOString(), until: window.until?.toISOString() },
    rows: tally.rows(),
    total: tally.total(),
    prices: { asOf: PRICES_AS_OF, source: PRICES_SOURCE },
    damaged,
    unreadable,
  };
}
