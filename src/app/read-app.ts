/**
 * The app's read side, for the commands that only read the state directory (`jobs`, `show`, `usage`,
 * `statusline`): the job store and the reports, without the prober, the shim and the job manager that
 * createApp (src/app.ts) wires, so a status line run every few hundred milliseconds loads none of them.
 */
import { loadPriceSettings, NO_PRICE_SETTINGS, type PriceSettings } from '../config/price-settings.js';
import type { JobRecord } from '../jobs/record/job-record.js';
import { createJobStore, stateDirFrom, type DamagedRecord, type JobStore } from '../jobs/record/job-store.js';
import { liveJobs, type LiveJob } from '../jobs/queue/live-jobs.js';
import { jobUsageSummary, type JobUsageSummary } from '../usage/job-summary.js';
import { buildUsageReport, type UsageReport, type UsageWindow } from '../usage/report.js';
import { statusFacts, type StatusFacts } from '../usage/status-facts.js';
import type { Grouping } from '../usage/tally.js';
import { transcriptReader } from '../usage/transcripts/caller-cost.js';

export interface ReadAppOptions {
  readonly configPath?: string | undefined;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export interface ReadApp {
  readonly stateDir: string;
  readonly store: JobStore;
  /** The running and queued jobs of every process, found on the slot board (not by reading every record). */
  liveJobs(): Promise<{ jobs: LiveJob[]; damaged: DamagedRecord[] }>;
  /** A job's usage summary; at the published prices when models.yaml is broken (doctor reports that). */
  jobUsage(record: JobRecord): Promise<JobUsageSummary>;
  /** The usage report over every job on record at models.yaml's prices; a broken models.yaml is an error here. */
  usageReport(by: Grouping, window: UsageWindow, now: Date): Promise<UsageReport>;
  /** The status line's facts for a Claude Code session in `projectDir` (its models.yaml, else the default comparison). */
  statusFacts(projectDir: string | undefined, now: Date): Promise<StatusFacts>;
}

export function createReadApp(options: ReadAppOptions): ReadApp {
  const stateDir = stateDirFrom(options.env);
  const store = createJobStore(stateDir);
  const prices = (cwd: string = options.cwd): Promise<PriceSettings> => loadPriceSettings({ configPath: options.configPath, cwd, env: options.env }, stateDir);
  const pricesOrDefault = (cwd?: string): Promise<PriceSettings> => prices(cwd).catch(() => NO_PRICE_SETTINGS);
  return {
    stateDir,
    store,
    liveJobs: () => liveJobs(stateDir, store),
    jobUsage: async (record) => jobUsageSummary(record, store, await pricesOrDefault(), { reader: transcriptReader(options.env), now: new Date() }),
    usageReport: async (by, window, now) => buildUsageReport(store, await prices(), by, window, { reader: transcriptReader(options.env), now }),
    statusFacts: async (projectDir, now) => statusFacts(stateDir, store, projectDir, await pricesOrDefault(projectDir ?? options.cwd), now),
  };
}
