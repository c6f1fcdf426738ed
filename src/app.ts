/**
 * The services every edge (MCP server, CLI, dashboard) calls, wired once.
 * Edges validate input, call one of these and format the result.
 */
import { createProber, type Prober } from './backends/probe.js';
import { createConfigLoader } from './config/cached-loader.js';
import type { Config, EndpointConfig, ModelEntry } from './config/schema.js';
import { upsertSidecarEntry, type ModelInput } from './config/sidecar.js';
import { checkToolEndpoint } from './config/tool-grants.js';
import { BadArgumentError } from './errors.js';
import type { EndpointProbe } from './backends/types.js';
import { createJobManager, type JobManager } from './jobs/job-manager.js';
import { createJobStore, stateDirFrom, type JobStore } from './jobs/job-store.js';
import type { LiveThresholds } from './jobs/live-requests.js';
import { localComplete, type CompleteRequest, type CompleteResult } from './jobs/local-complete.js';
import type { Logger } from './log.js';
import { modelAvailability, type ModelAvailability } from './registry/availability.js';
import { buildModelList, type ModelListing } from './registry/model-list.js';
import { createShimServer, type ShimServer } from './shim/server.js';

export interface AppOptions {
  readonly configPath?: string | undefined;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: Logger;
  readonly stateDir?: string | undefined;
  readonly claudeExecutable?: string | undefined;
  readonly queuePollMs?: number | undefined;
  /** When an open backend request is flagged silent or runaway (default: 60 s; 4× the longest turn and 4,000 tokens). */
  readonly liveThresholds?: LiveThresholds | undefined;
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
    queuePollMs: options.queuePollMs,
    liveThresholds: options.liveThresholds,
  });

  const listModels = async (): Promise<ModelListing> => {
    const config = await load();
    const probes = await prober.probeAll(config);
    return buildModelList(config, probes, (endpoint) => jobs.endpointJobs(endpoint));
  };

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
          hint: 'Register the endpoint first (register_endpoint), or leave endpoint out.',
          details: { allowed: known },
        });
      }
      const written = await upsertSidecarEntry(config.sidecarPath, 'models', name, entry);
      return { sidecar: config.sidecarPath, entry: written, listing: await listModels() };
    },
    complete: (request) => localComplete({ loadConfig: load, prober, shim }, request),
    async close() {
      await jobs.close();
      await shim.close();
      await prober.close();
    },
  };
}
