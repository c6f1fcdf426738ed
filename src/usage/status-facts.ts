/**
 * What the Claude Code status line shows, read from the state directory only (no
 * probe, no network): the jobs running and queued on the slot board, this project's
 * first; the open backend request of the first running one; today's jobs and their
 * estimated savings. A year of finished jobs costs a readdir: only today's are read.
 */
import type { PriceSettings } from '../config/price-settings.js';
import type { InFlightRequest, JobRecord } from '../jobs/record/job-record.js';
import type { JobStore } from '../jobs/record/job-store.js';
import { liveJobs } from '../jobs/queue/live-jobs.js';
import { forEachJobUsage } from './report.js';
import { createUsageTally } from './tally.js';

export interface StatusFacts {
  readonly running: { readonly here: number; readonly elsewhere: number };
  readonly queued: { readonly here: number; readonly elsewhere: number };
  /** The open request of the first running job (this project's first). */
  readonly open: InFlightRequest | undefined;
  /** Today's jobs, and their net saving (computed) when a caller cost on file was measured and priced. */
  readonly today: { readonly jobs: number; readonly netUsd: number | undefined };
}

const inProject = (record: JobRecord, projectDir: string | undefined): boolean =>
  projectDir !== undefined && (record.cwd === projectDir || record.cwd.startsWith(`${projectDir}/`));

export async function statusFacts(stateDir: string, store: JobStore, projectDir: string | undefined, settings: PriceSettings, now: Date): Promise<StatusFacts> {
  // A damaged record of a live job is `localagents jobs`'s to name; the line counts what it can read.
  const records = (await liveJobs(stateDir, store)).jobs;
  const count = (leased: boolean): { here: number; elsewhere: number } => {
    const of = records.filter((r) => r.leased === leased);
    const here = of.filter((r) => inProject(r.record, projectDir)).length;
    return { here, elsewhere: of.length - here };
  };
  const running = records.filter((r) => r.leased).sort((a, b) => Number(inProject(b.record, projectDir)) - Number(inProject(a.record, projectDir)));
  const open = running.map((r) => r.record.in_flight?.[0]).find((r) => r !== undefined);

  const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  // No lookup in transcripts here: the line only reads what reports have put on file.
  const tally = createUsageTally('day', settings.prices);
  await forEachJobUsage(store, { since: midnight }, { job: (job) => tally.add(job) });
  const total = tally.total();
  return {
    running: count(true),
    queued: count(false),
    open,
    today: { jobs: total.jobs.succeeded + total.jobs.failed + total.jobs.other, netUsd: total.caller.models.some((m) => !total.caller.unpriced.includes(m)) ? total.priced.netUsd : undefined },
  };
}
