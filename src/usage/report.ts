/**
 * The usage report over every job in the state directory, whichever process ran
 * it: read a month of ids at a time, settled jobs from the usage index and the
 * others a few files at a time, each job's facts added to the tally and dropped.
 * Damaged records and unreadable log lines are named in the report, never fatal.
 */
import { dirname } from 'node:path';
import type { Defaults } from '../config/schema.js';
import { createSlotBoard } from '../coord/slot-board.js';
import { isLocalAgentsError } from '../errors.js';
import { jobIdStamp } from '../jobs/job-id.js';
import { idsBetween } from '../jobs/job-id-listing.js';
import { FINISHED } from '../jobs/job-record.js';
import { damagedRecord, forEachLimited, type DamagedRecord, type JobStore } from '../jobs/job-store.js';
import { comparison, type Comparison } from './estimate.js';
import { readJobUsage, type JobUsage } from './job-usage.js';
import { createUsageTally, type Grouping, type UsageRow } from './tally.js';
import { monthOf, openUsageIndex } from './usage-index.js';

/** Jobs read at once: thousands of parallel opens run out of file descriptors. */
const READ_CONCURRENCY = 16;
const DAY_MS = 86_400_000;

export interface UsageWindow {
  /** Jobs created at or after this instant. */
  readonly since?: Date | undefined;
  /** Jobs created before this instant. */
  readonly until?: Date | undefined;
}

/** A job whose logs had lines that could not be read (not counted in the sums). */
export interface UnreadableLog {
  readonly id: string;
  readonly lines: number;
  readonly halfWritten: boolean;
}

export interface UsageReport {
  readonly by: Grouping;
  readonly window: { readonly since: string | undefined; readonly until: string | undefined };
  readonly rows: readonly UsageRow[];
  readonly total: UsageRow;
  readonly comparison: Comparison;
  readonly damaged: readonly DamagedRecord[];
  readonly unreadable: readonly UnreadableLog[];
}

/**
 * Ids sort by their UTC creation time: those a day or more outside the window are skipped unread,
 * by comparing strings (the status line runs this over a year of ids every refresh).
 */
function idsMaybeIn(ids: readonly string[], window: UsageWindow): readonly string[] {
  const from = window.since === undefined ? undefined : jobIdStamp(new Date(window.since.getTime() - DAY_MS));
  const to = window.until === undefined ? undefined : jobIdStamp(new Date(window.until.getTime() + DAY_MS + 1000));
  return idsBetween(ids, from, to);
}

function inWindow(createdAt: string, window: UsageWindow): boolean {
  const at = Date.parse(createdAt);
  return (window.since === undefined || at >= window.since.getTime()) && (window.until === undefined || at < window.until.getTime());
}

/** The ids of each month file, in order. */
function byMonth(ids: readonly string[]): Map<string, string[]> {
  const months = new Map<string, string[]>();
  for (const id of ids) {
    const key = monthOf(id);
    let of = months.get(key);
    if (of === undefined) months.set(key, (of = []));
    of.push(id);
  }
  return months;
}

/**
 * Calls `onJob` for every job in the window, a month at a time; returns what could not be read. A settled
 * job (finished, off the slot board) comes from the usage index when it is there, and goes into it otherwise.
 */
export async function forEachJobUsage(
  store: JobStore,
  window: UsageWindow,
  onJob: (job: JobUsage) => void,
): Promise<{ damaged: DamagedRecord[]; unreadable: UnreadableLog[] }> {
  // In this order: the index (the ledger's size), the board, then the jobs' own files (src/usage/usage-index.ts).
  const index = await openUsageIndex(store.root);
  const live = new Set((await createSlotBoard(dirname(store.root)).read()).tickets.map((t) => t.job));
  const all = await store.ids();
  const damaged: DamagedRecord[] = [];
  const unreadable: UnreadableLog[] = [];
  const deliver = (job: JobUsage): void => {
    if (job.unreadableLines > 0 || job.halfWritten) unreadable.push({ id: job.id, lines: job.unreadableLines, halfWritten: job.halfWritten });
    onJob(job);
  };
  for (const [key, ids] of byMonth(idsMaybeIn(all, window))) {
    const month = await index.month(key);
    await forEachLimited(ids, READ_CONCURRENCY, async (id) => {
      const indexed = live.has(id) ? undefined : month.cached(id);
      if (indexed !== undefined) {
        if (inWindow(indexed.createdAt, window)) deliver(indexed);
        return;
      }
      let job: JobUsage;
      try {
        const record = await store.read(id);
        if (!inWindow(record.created_at, window)) return;
        job = await readJobUsage(record, store.paths(id));
        if (FINISHED.has(record.status) && !live.has(id)) month.remember(job);
      } catch (err) {
        month.forget(id);
        // A folder without job.json is a job being created (or removed) right now: nothing to count yet.
        if (isLocalAgentsError(err) && err.code === 'unknown_job') return;
        damaged.push(damagedRecord(id, store.paths(id).record, err));
        return;
      }
      deliver(job);
    });
    // The ids on file of this month (they start with its yyyymm): a month's jobs that are gone drop out of its file.
    await month.save(new Set(idsBetween(all, key.replace('-', ''), `${key.replace('-', '')}~`)));
  }
  damaged.sort((a, b) => a.id.localeCompare(b.id));
  unreadable.sort((a, b) => a.id.localeCompare(b.id));
  return { damaged, unreadable };
}

export async function buildUsageReport(store: JobStore, defaults: Pick<Defaults, 'prices' | 'compare_with'>, by: Grouping, window: UsageWindow): Promise<UsageReport> {
  const compared = comparison(defaults);
  const tally = createUsageTally(by, compared.prices);
  const { damaged, unreadable } = await forEachJobUsage(store, window, (job) => tally.add(job));
  return {
    by,
    window: { since: window.since?.toISOString(), until: window.until?.toISOString() },
    rows: tally.rows(),
    total: tally.total(),
    comparison: compared,
    damaged,
    unreadable,
  };
}
