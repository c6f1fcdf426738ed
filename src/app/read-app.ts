/**
 * The app's read side, for the commands that only read the state directory (`jobs`, `show`, `usage`,
 * `statusline`): the job store and the reports, without the prober, the shim and the job manager that
 * createApp (src/app.ts) wires, so a status line run every few hundred milliseconds loads none of them.
 */
import type { PriceSettings } from '../config/price-settings.js';
import type { JobRecord } from '../jobs/job-record.js';
import { createJobStore, stateDirFrom, type DamagedRecord, type JobStore } from '../jobs/job-store.js';
import type { LiveJob } from '../jobs/live-jobs.js';
import type { JobUsageSummary } from '../usage/job-summary.js';
import type { UsageReport, UsageWindow } from '../usage/report.js';
import type { StatusFacts } from '../usage/status-facts.js';
import type { Grouping } from '../usage/tally.js';

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
  usageReport(by: Grouping, window: UsageWindow): Promise<UsageReport>;
  /** The status line's facts for a Claude Code session in `projectDir` (its models.yaml, else the default comparison). */
  statusFacts(projectDir: string | undefined, now: Date): Promise<StatusFacts>;
}

/** Each part loaded when first asked for: `jobs` reads no prices and builds no report. */
export function createReadApp(options: ReadAppOptions): ReadApp {
  const stateDir = stateDirFrom(options.env);
  const store = createJobStore(stateDir);
  const prices = async (cwd: string = options.cwd): Promise<PriceSettings> =>
    (await import('../config/price-settings.js')).loadPriceSettings({ configPath: options.configPath, cwd, env: options.env }, stateDir);
  const pricesOrDefault = async (cwd?: string): Promise<PriceSettings> => {
    const { NO_PRICE_SETTINGS } = await import('../config/price-settings.js');
    return prices(cwd).catch(() => NO_PRICE_SETTINGS);
  };
  return {
    stateDir,
    store,
    liveJobs: async () => (await import('../jobs/live-jobs.js')).liveJobs(stateDir, store),
    jobUsage: async (record) => (await import('../usage/job-summary.js')).jobUsageSummary(record, store.paths(record.id), await pricesOrDefault()),
    usageReport: async (by, window) => (await import('../usage/report.js')).buildUsageReport(store, await prices(), by, window),
    statusFacts: async (projectDir, now) =>
      (await import('../usage/status-facts.js')).statusFacts(stateDir, store, projectDir, await pricesOrDefault(projectDir ?? options.cwd), now),
  };
}
