/**
 * The services every edge (MCP server, CLI, dashboard) calls, wired once.
 * Edges validate input, call one of these and format the result.
 */
import { createProber, type Prober } from './backends/probe.js';
import { createConfigLoader } from './config/cached-loader.js';
import { priceSettingsOf } from './config/price-settings.js';
import type { Config, EndpointConfig, ModelEntry } from './config/schema.js';
import { upsertSidecarEntry, type ModelInput } from './config/sidecar.js';
import { checkToolEndpoint } from './config/tool-grants.js';
import { BadArgumentError } from './errors.js';
import type { EndpointProbe } from './backends/types.js';
import { createJobManager, type JobManager } from './jobs/queue/job-manager.js';
import { appendCallerEntry, type CallerEntry } from './jobs/record/caller-log.js';
import { jobDetail, type JobDetail } from './jobs/view/job-detail.js';
import { diffTarget, diffText, diffToTerminal, type DiffTarget, type NoDiff } from './jobs/git/job-diff.js';
import { followJob, type JobFollow } from './jobs/view/job-follow.js';
import { resolveJobRef, type JobRefOptions } from './jobs/record/job-ref.js';
import type { JobRecord } from './jobs/record/job-record.js';
import { createJobStore, stateDirFrom, type JobPaths, type JobStore } from './jobs/record/job-store.js';
import { localComplete, type CompleteRequest, type CompleteResult } from './jobs/session/local-complete.js';
import { mergeJob, type MergeOutcome } from './jobs/git/merge-job.js';
import { pruneJobs, type PruneAction } from './jobs/git/prune.js';
import { RECENT_DAYS, recentJobs, refreshOutcomes } from './jobs/git/outcome-check.js';
import { keptByModel, recordOutcome } from './jobs/record/outcome.js';
import type { Logger } from './log.js';
import { modelAvailability, type ModelAvailability } from './registry/availability.js';
import { buildModelList, type ModelListing } from './registry/model-list.js';
import { createShimServer, type ShimServer } from './shim/server.js';
import { jobRequestSeries, type RequestSeries } from './usage/request-series.js';
import { jobUsageJson, jobUsageSummary, type JobUsageSummary } from './usage/job-summary.js';
import { buildUsageReport, type CallerLookup, type UsageReport, type UsageWindow } from './usage/report.js';
import { transcriptReader } from './usage/transcripts/caller-cost.js';
import type { Grouping } from './usage/tally.js';
import { listAgents } from './agents/agent-listing.js';

export interface AppOptions {
  readonly configPath?: string | undefined;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: Logger;
  readonly stateDir?: string | undefined;
  readonly claudeExecutable?: string | undefined;
  /** Replaces reading models.yaml (the self-test builds its Config in memory and writes no file). */
  readonly loadConfig?: (() => Promise<Config>) | undefined;
}

export interface App {
  readonly stateDir: string;
  readonly prober: Prober;
  readonly shim: ShimServer;
  readonly store: JobStore;
  readonly jobs: JobManager;
  loadConfig(): Promise<Config>;
  listModels(): Promise<ModelListing>;
  /** Where `model` is live now, or what to tell the user to start it; starts nothing. */
  requestModel(model: string): Promise<ModelAvailability>;
  registerEndpoint(name: string, entry: EndpointConfig): Promise<{ sidecar: string; entry: EndpointConfig; probe: EndpointProbe }>;
  registerModel(name: string, entry: ModelInput): Promise<{ sidecar: string; entry: ModelEntry; listing: ModelListing }>;
  complete(request: CompleteRequest): Promise<CompleteResult>;
  /** Where a job's files are (record, transcript, requests.jsonl, …). */
  jobPaths(id: string): JobPaths;
  /** The job id a reference means (a full id, a unique prefix, or `last`); `hint` is the edge's next step when it names none. */
  resolveJob(ref: string, options?: JobRefOptions): Promise<string>;
  /** The job page's record, transcript tail and diffstat (live while a worktree job runs). */
  jobDetail(id: string): Promise<JobDetail>;
  /** Polls a job for a live view: its record, the transcript's new lines, the last request's speed. */
  followJob(id: string): JobFollow;
  /** A job's requests.jsonl as chart points, its open requests after them. */
  requestSeries(id: string): Promise<RequestSeries & { readonly context: number | null }>;
  /** A job's usage summary (tokens, GPU time, the estimate), as job_status, `show` and the job page give it. */
  /** `lookUp`: look a caller cost not yet on file up in the caller's transcript (show does; job_status only reads). */
  jobUsage(record: JobRecord, lookUp?: boolean): Promise<JobUsageSummary>;
  /** The usage report over every job on record, grouped `by`, at the prices models.yaml sets. */
  usageReport(by: Grouping, window: UsageWindow): Promise<UsageReport>;
  /** Counts one MCP call into the job it concerns (caller.jsonl: what delegating cost the caller). */
  logCallerCall(id: string, entry: CallerEntry): Promise<void>;
  /** `localagents diff`: where a job's changes are, as text or straight to the terminal through git. */
  readonly diff: {
    target(record: JobRecord): DiffTarget | NoDiff;
    text(target: DiffTarget, stat: boolean): Promise<string>;
    toTerminal(target: DiffTarget, stat: boolean): Promise<number>;
  };
  /** Merges a worktree job's branch into the checkout at `cwd`. */
  merge(record: JobRecord, cwd: string): Promise<MergeOutcome>;
  /** Removes finished jobs older than `olderThanMs` (or says what it would remove). */
  prune(options: { readonly olderThanMs: number; readonly dryRun: boolean }): Promise<PruneAction[]>;
  close(): Promise<void>;
}

export function createApp(options: AppOptions): App {
  const stateDir = options.stateDir ?? stateDirFrom(options.env);
  const load = options.loadConfig ?? createConfigLoader({ configPath: options.configPath, cwd: options.cwd, env: options.env });
  const prober = createProber();
  const shim = createShimServer(options.log);
  const store = createJobStore(stateDir);
  const jobs = createJobManager({
    loadConfig: load,
    prober,
    shim,
    store,
    stateDir,
    log: options.log,
    parentEnv: options.env,
    defaultCwd: options.cwd,
    claudeExecutable: options.claudeExecutable,
  });

  const listModels = async (): Promise<ModelListing> => {
    const config = await load();
    const snapshot = await jobs.snapshot(config);
    const agents = await listAgents({ config, cwd: options.cwd, env: options.env });
    const recent = await recentJobs(store, 'the model listing');
    const kept = { days: RECENT_DAYS, jobs: recent.records.length, capped: recent.capped, models: keptByModel(recent.records) };
    return { ...buildModelList(config, snapshot.probes, (endpoint) => snapshot.jobsOf(endpoint), options.cwd), ...agents, kept };
  };

  const lookup = (): CallerLookup => ({ reader: transcriptReader(options.env), now: new Date() });
  const jobUsage = async (record: JobRecord, look = false): Promise<JobUsageSummary> =>
    jobUsageSummary(record, store, await priceSettingsOf(load), look ? lookup() : undefined);

  return {
    stateDir,
    prober,
    shim,
    store,
    jobs,
    loadConfig: load,
    listModels,
    async requestModel(model) {
      const config = await load();
      return modelAvailability(config, await prober.probeAll(config), model);
    },
    async registerEndpoint(name, entry) {
      const config = await load();
      checkToolEndpoint(config, name, entry);
      const written = await upsertSidecarEntry(config.sidecarPath, 'endpoints', name, entry);
      const merged = await load();
      // The sidecar wins the merge, so the entry is there, with its api_key_env resolved.
      const endpoint = merged.endpoints.find((e) => e.name === name) ?? { name, ...written };
      const probe = await prober.probeEndpoint(endpoint, merged.defaults.probe_timeout_s);
      void jobs.pump(); // a new endpoint may be what a queued job waits for
      return { sidecar: config.sidecarPath, entry: written, probe };
    },
    async registerModel(name, entry) {
      const config = await load();
      // Checked before writing: a menu entry naming a missing endpoint would make every later load fail.
      if (entry.endpoint !== undefined && !config.endpoints.some((e) => e.name === entry.endpoint)) {
        const known = config.endpoints.map((e) => e.name);
        throw new BadArgumentError('endpoint', `unknown endpoint "${entry.endpoint}"; configured endpoints: ${known.join(', ') || '(none)'}`, {
          hint: 'Register the endpoint first, or leave endpoint out.',
          details: { allowed: known },
        });
      }
      const written = await upsertSidecarEntry(config.sidecarPath, 'models', name, entry);
      return { sidecar: config.sidecarPath, entry: written, listing: await listModels() };
    },
    complete: (request) => localComplete({ loadConfig: load, prober, shim }, request),
    jobPaths: (id) => store.paths(id),
    resolveJob: async (ref, refOptions) => resolveJobRef(ref, await store.ids(), refOptions),
    async jobDetail(id) {
      await refreshOutcomes(store, [await jobs.get(id)], 'the dashboard');
      return jobDetail(jobs, id, async (record) => {
        const summary = await jobUsage(record, true);
        return { ...jobUsageJson(summary), text: summary.text };
      });
    },
    jobUsage,
    usageReport: async (by, window) => buildUsageReport(store, await priceSettingsOf(load), by, window, lookup()),
    logCallerCall: (id, entry) => appendCallerEntry(store, id, entry),
    diff: { target: diffTarget, text: diffText, toTerminal: diffToTerminal },
    followJob: (id) => followJob(jobs, id, store.paths(id)),
    requestSeries: async (id) => jobRequestSeries(await jobs.get(id), store.paths(id).requests),
    async merge(record, cwd) {
      const merged = await mergeJob(record, cwd);
      const detail = merged.merged ? `merged ${merged.branch} into ${merged.into} in ${merged.repo} (now ${merged.head.slice(0, 12)})` : `${merged.branch} was already in ${merged.into} of ${merged.repo}`;
      await recordOutcome(store, record.id, { fate: { kind: 'merged', at: new Date().toISOString(), by: 'localagents merge', detail } });
      return merged;
    },
    async prune(pruneOptions) {
      const caches = (await load()).defaults.worktree_caches;
      return pruneJobs(store, { ...pruneOptions, caches });
    },
    async close() {
      await jobs.close();
      await shim.close();
      await prober.close();
    },
  };
}
