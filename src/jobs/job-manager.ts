/**
 * The job service behind run_agent, wait_job, cancel_job and friends: creates
 * records, queues jobs until an endpoint has a free slot, starts them, and
 * answers questions about them. One instance per server process.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Prober } from '../backends/probe.js';
import type { EndpointProbe } from '../backends/types.js';
import type { Config } from '../config/schema.js';
import { LocalAgentsError, errorMessage, isLocalAgentsError } from '../errors.js';
import type { Logger } from '../log.js';
import { resolveModel, type Resolution } from '../registry/resolve.js';
import type { Shim } from '../shim/routes.js';
import { checkJobId, newJobId } from './job-id.js';
import { FINISHED, type JobRecord } from './job-record.js';
import { runPlacedJob, type PlacedJob } from './job-run.js';
import type { JobListing, JobPaths, JobStore } from './job-store.js';
import { place, type EndpointLoad } from './placement.js';
import { newQueuedRecord, resumeTarget } from './new-job.js';
import { settleSettings, type JobSettings, type RunRequest } from './run-request.js';
import { prepareWorktree, runningWorktreeInfo, type PreparedWorktree } from './worktree.js';

export interface JobManagerDeps {
  readonly loadConfig: () => Promise<Config>;
  readonly prober: Prober;
  readonly shim: Shim & { inFlight(endpoint: string): number };
  readonly store: JobStore;
  readonly stateDir: string;
  readonly log: Logger;
  readonly parentEnv: Readonly<Record<string, string | undefined>>;
  readonly defaultCwd: string;
  readonly claudeExecutable?: string | undefined;
  /** How often a non-empty queue re-probes for free slots. */
  readonly queuePollMs?: number;
}

interface QueuedJob {
  record: JobRecord;
  readonly paths: JobPaths;
  readonly task: string;
  readonly settings: JobSettings;
  readonly request: RunRequest;
  readonly resumeSession: string | undefined;
  /** Last time some live endpoint served the model; the grace period counts from here. */
  lastServedAt: number;
  readonly done: Promise<JobRecord>;
  readonly finish: (record: JobRecord) => void;
}

/** What one placement pass sees: the config, the probes, and our own requests in flight while probing. */
interface Observation {
  readonly config: Config;
  readonly probes: EndpointProbe[];
  readonly ourInFlight: ReadonlyMap<string, number>;
  readonly at: number;
}

interface Active {
  job: PlacedJob;
  readonly done: Promise<JobRecord>;
}

export interface EndpointJobs {
  readonly running: number;
  readonly queuedByModel: Record<string, number>;
}

export interface JobManager {
  start(request: RunRequest): Promise<JobRecord>;
  wait(id: string, timeoutS: number): Promise<JobRecord>;
  cancel(id: string): Promise<JobRecord>;
  get(id: string): Promise<JobRecord>;
  /**
   * Oldest first; `newest` limits the answer to the most recent jobs (cheap with thousands on record),
   * plus this process's running and queued jobs wherever their ids sort. Unreadable records are in `damaged`.
   */
  list(includeFinished: boolean, newest?: number): Promise<JobListing>;
  tail(id: string, lines: number): Promise<string>;
  endpointJobs(endpoint: string): EndpointJobs;
  /** Re-check the queue now (a job ended, an endpoint was registered); resolves when that pass is done. */
  pump(): Promise<void>;
  close(): Promise<void>;
}

/** How often records the disk refused are written again. */
const SAVE_RETRY_MS = 2000;

export function createJobManager(deps: JobManagerDeps): JobManager {
  const queue: QueuedJob[] = [];
  const active = new Map<string, Active>();
  const warmEndpointByTree = new Map<string, string>();
  let pumping: Promise<void> | undefined;
  let pumpAgain: Promise<void> | undefined;
  let pollTimer: NodeJS.Timeout | undefined;
  let closed = false;
  /** The probe run_agent just made to validate the request: the placement pass right after reuses it. */
  let recentProbe: Observation | undefined;
  const RECENT_PROBE_MS = 1000;

  /**
   * Records the disk would not take: still reported by this process (get, list), written again
   * every few seconds until the disk takes them, and once more at close. Without that, a job that
   * succeeded on a full disk would be read back as `interrupted` by the next server, its result lost.
   */
  const unsaved = new Map<string, JobRecord>();
  let retryTimer: NodeJS.Timeout | undefined;
  const save = async (record: JobRecord): Promise<void> => {
    try {
      await deps.store.save(record);
      unsaved.delete(record.id);
    } catch (err) {
      // A full or read-only disk must not stop the job; the record in memory stays true.
      const known = unsaved.has(record.id);
      unsaved.set(record.id, record);
      if (!known) deps.log.error('%s; retrying every %d s', errorMessage(err), SAVE_RETRY_MS / 1000);
      scheduleRetry();
    }
  };
  /** Writes every unsaved record again; the newest state of each, since a running job may have moved on. */
  const retryUnsaved = async (): Promise<void> => {
    retryTimer = undefined;
    for (const [id, record] of [...unsaved]) {
      const latest = current(id) ?? record;
      try {
        await deps.store.save(latest);
        if (unsaved.get(id) === record) unsaved.delete(id);
        deps.log.info('job %s: its record is on disk again (%s)', id, latest.status);
      } catch {
        // Still refused: keep it, try again later.
      }
    }
    scheduleRetry();
  };
  function scheduleRetry(): void {
    if (retryTimer !== undefined || unsaved.size === 0 || closed) return;
    retryTimer = setTimeout(() => void retryUnsaved(), SAVE_RETRY_MS);
    retryTimer.unref();
  }

  const ourJobsOn = (endpoint: string): number => [...active.values()].filter((a) => a.job.endpoint.name === endpoint).length;

  /**
   * Probes, with how many of our requests were in flight while they ran: the busy
   * slots a probe saw include ours, and only those of other clients reduce our
   * capacity. Our count is taken before and after and the larger kept, so one of
   * our requests that ended meanwhile is never mistaken for someone else's.
   */
  const observe = async (config: Config): Promise<Observation> => {
    const inFlightNow = (): Map<string, number> => new Map(config.endpoints.map((e) => [e.name, deps.shim.inFlight(e.name)]));
    const before = inFlightNow();
    const probes = await deps.prober.probeAll(config);
    const after = inFlightNow();
    const ourInFlight = new Map([...after].map(([name, n]) => [name, Math.max(n, before.get(name) ?? 0)]));
    return { config, probes, ourInFlight, at: performance.now() };
  };

  const loadOf = (seen: Observation) => (endpoint: string): EndpointLoad => ({
    ourJobs: ourJobsOn(endpoint),
    ourInFlight: seen.ourInFlight.get(endpoint) ?? 0,
  });

  const requestedModel = (q: QueuedJob): string => q.request.model ?? q.record.model.requested ?? '(default)';

  const startPlaced = async (q: QueuedJob, resolution: Resolution, seen: Observation): Promise<void> => {
    const candidate = place({ candidates: resolution.candidates, loadOf: loadOf(seen), warmEndpoint: warmEndpointByTree.get(q.settings.cwd) });
    if (candidate === undefined) return;
    queue.splice(queue.indexOf(q), 1);
    let worktree: PreparedWorktree | undefined;
    const warnings = [...q.record.warnings, ...candidate.model.warnings];
    if (q.settings.isolation === 'worktree') {
      try {
        worktree = await prepareWorktree(q.settings.cwd, join(deps.stateDir, 'worktrees'), q.record.id);
        warnings.push(...worktree.warnings);
      } catch (err) {
        q.record = { ...q.record, status: 'failed', error: errorMessage(err), finished_at: new Date().toISOString() };
        await save(q.record);
        q.finish(q.record);
        return;
      }
    }
    const workDir = worktree?.workDir ?? q.settings.cwd;
    warmEndpointByTree.set(q.settings.cwd, candidate.endpoint.name);
    const job: PlacedJob = {
      record: {
        ...q.record,
        status: 'running',
        started_at: new Date().toISOString(),
        queue: undefined,
        work_dir: workDir,
        worktree: worktree && runningWorktreeInfo(worktree),
        warnings,
        model: {
          ...q.record.model,
          served: candidate.model.id,
          endpoint: candidate.endpoint.name,
          context: candidate.context,
          context_source: candidate.contextSource,
        },
      },
      paths: q.paths,
      task: q.task,
      settings: q.settings,
      endpoint: candidate.endpoint,
      servedModel: candidate.model.id,
      context: candidate.context,
      worktree,
      workDir,
      resumeSession: q.resumeSession,
      abort: new AbortController(),
      stopReason: undefined,
    };
    await save(job.record);
    const done = runPlacedJob(job, {
      shim: deps.shim,
      log: deps.log,
      parentEnv: deps.parentEnv,
      claudeExecutable: deps.claudeExecutable,
      save,
    })
      .catch(async (err: unknown) => {
        job.record = { ...job.record, status: 'failed', error: `localagents failed to run the job: ${errorMessage(err)}`, finished_at: new Date().toISOString() };
        await save(job.record);
        return job.record;
      })
      .finally(() => {
        active.delete(q.record.id);
        void pump();
      });
    active.set(q.record.id, { job, done });
    void done.then(q.finish);
  };

  const failQueued = async (q: QueuedJob, error: LocalAgentsError): Promise<void> => {
    queue.splice(queue.indexOf(q), 1);
    q.record = { ...q.record, status: 'failed', error: error.message, queue: undefined, finished_at: new Date().toISOString() };
    await save(q.record);
    q.finish(q.record);
  };

  const pumpOnce = async (): Promise<void> => {
    if (queue.length === 0) return;
    const fresh = recentProbe !== undefined && performance.now() - recentProbe.at < RECENT_PROBE_MS ? recentProbe : undefined;
    recentProbe = undefined;
    const seen = fresh ?? (await observe(await deps.loadConfig()));
    const { config, probes } = seen;
    const blockedModels = new Set<string>();
    for (const q of [...queue]) {
      const key = `${requestedModel(q)}@${q.request.endpoint ?? ''}`;
      if (blockedModels.has(key)) continue; // first come, first served per model
      let resolution: Resolution;
      try {
        resolution = resolveModel(config, probes, { model: q.request.model ?? q.record.model.requested, endpoint: q.request.endpoint });
      } catch (err) {
        const graceMs = config.defaults.queue_grace_s * 1000;
        if (isLocalAgentsError(err) && (err.code !== 'model_unavailable' || Date.now() - q.lastServedAt >= graceMs)) {
          await failQueued(q, err);
        } else {
          blockedModels.add(key);
        }
        continue;
      }
      q.lastServedAt = Date.now();
      await startPlaced(q, resolution, seen);
      if (queue.includes(q)) blockedModels.add(key);
    }
    // Positions and what each waits for, for job_status.
    for (const [index, q] of queue.entries()) {
      const next = { position: index + 1, waiting_for: `a free slot for ${requestedModel(q)}${q.request.endpoint ? ` on ${q.request.endpoint}` : ''}` };
      if (q.record.queue?.position !== next.position) {
        q.record = { ...q.record, queue: next };
        await save(q.record);
      }
    }
  };

  /** Single-flight: a call during a pass schedules exactly one more pass and resolves after it. */
  function pump(): Promise<void> {
    if (closed) return Promise.resolve();
    if (pumping) {
      pumpAgain ??= pumping.then(() => {
        pumpAgain = undefined;
        return pump();
      });
      return pumpAgain;
    }
    clearTimeout(pollTimer);
    pumping = (async () => {
      try {
        await pumpOnce();
      } catch (err) {
        deps.log.error('queue: %s', errorMessage(err));
      } finally {
        pumping = undefined;
        if (queue.length > 0 && !closed && pumpAgain === undefined) pollTimer = setTimeout(() => void pump(), deps.queuePollMs ?? 2000);
      }
    })();
    return pumping;
  }

  const enqueue = async (request: RunRequest): Promise<QueuedJob> => {
    const config = await deps.loadConfig();
    const busy = (id: string): boolean => active.has(id) || queue.some((q) => q.record.id === id);
    const { effective, resumeSession } = await resumeTarget(deps.store, request, busy);
    const settings = await settleSettings(effective, config, deps.defaultCwd, deps.parentEnv);
    // Fail fast on arguments and on a model that is nowhere, before a record exists.
    const seen = await observe(config);
    const { probes } = seen;
    try {
      resolveModel(config, probes, { model: effective.model, endpoint: effective.endpoint });
    } catch (err) {
      // A server still loading its model will likely serve it soon: queue (within queue_grace_s) rather than refuse.
      const loading = probes.some((p) => p.state === 'loading' && (effective.endpoint === undefined || p.endpoint === effective.endpoint));
      if (!(isLocalAgentsError(err) && err.code === 'model_unavailable' && loading)) throw err;
    }
    recentProbe = seen;

    const id = newJobId();
    const record = newQueuedRecord({
      id,
      task: request.task,
      requestedModel: effective.model ?? config.defaults.model,
      settings,
      resumedFrom: request.resumeJob,
      sessionId: resumeSession,
    });
    const paths = await deps.store.create(record, request.task);
    let finish!: (r: JobRecord) => void;
    const done = new Promise<JobRecord>((resolve) => {
      finish = resolve;
    });
    const q: QueuedJob = { record, paths, task: request.task, settings, request: effective, resumeSession, lastServedAt: Date.now(), done, finish };
    queue.push(q);
    return q;
  };

  const current = (id: string): JobRecord | undefined =>
    active.get(id)?.job.record ?? queue.find((q) => q.record.id === id)?.record ?? unsaved.get(id);

  const get = async (id: string): Promise<JobRecord> => current(checkJobId(id)) ?? deps.store.load(id);

  const doneOf = (id: string): Promise<JobRecord> | undefined => active.get(id)?.done ?? queue.find((q) => q.record.id === id)?.done;

  return {
    async start(request) {
      const q = await enqueue(request);
      // One placement pass, so the answer says running, or queued with a position.
      await pump();
      return current(q.record.id) ?? q.record;
    },
    async wait(id, timeoutS) {
      checkJobId(id);
      const done = doneOf(id);
      if (done === undefined) return get(id);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), timeoutS * 1000);
      });
      const finished = await Promise.race([done, timeout]);
      clearTimeout(timer);
      return finished ?? (await get(id));
    },
    async cancel(id) {
      checkJobId(id);
      const queued = queue.find((q) => q.record.id === id);
      if (queued) {
        queue.splice(queue.indexOf(queued), 1);
        queued.record = { ...queued.record, status: 'cancelled', error: 'cancelled on request before it started', queue: undefined, finished_at: new Date().toISOString() };
        await save(queued.record);
        queued.finish(queued.record);
        return queued.record;
      }
      const running = active.get(id);
      if (running) {
        running.job.stopReason ??= 'cancelled';
        running.job.abort.abort();
        return running.done;
      }
      return get(id);
    },
    get,
    async list(includeFinished, newest) {
      const { records, damaged } = await deps.store.list(includeFinished ? newest : undefined);
      const onDisk = new Set(records.map((r) => r.id));
      // Ids sort by the clock at creation: a job made while the clock was set back sorts among old ones,
      // outside the newest N, so this process's own live jobs are always added.
      const ours = [...active.values()].map((a) => a.job.record).concat(queue.map((q) => q.record));
      const memoryOnly = [...unsaved.values(), ...ours].filter((r) => !onDisk.has(r.id));
      const byId = new Map([...records, ...memoryOnly].map((r) => [r.id, current(r.id) ?? r]));
      const live = [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
      const shown = includeFinished ? live : live.filter((r) => !FINISHED.has(r.status));
      return { records: shown, damaged: damaged.filter((d) => !byId.has(d.id)) };
    },
    async tail(id, lines) {
      const paths = deps.store.paths(checkJobId(id));
      await get(id);
      let text: string;
      try {
        text = await readFile(paths.transcript, 'utf8');
      } catch {
        return '';
      }
      return text.split('\n').filter(Boolean).slice(-lines).join('\n');
    },
    endpointJobs(endpoint) {
      const queuedByModel: Record<string, number> = {};
      for (const q of queue) {
        if (q.request.endpoint !== undefined && q.request.endpoint !== endpoint) continue;
        queuedByModel[requestedModel(q)] = (queuedByModel[requestedModel(q)] ?? 0) + 1;
      }
      return { running: ourJobsOn(endpoint), queuedByModel };
    },
    pump,
    async close() {
      closed = true;
      clearTimeout(pollTimer);
      for (const a of active.values()) {
        a.job.stopReason ??= 'shutdown';
        a.job.abort.abort();
      }
      await Promise.allSettled([...active.values()].map((a) => a.done));
      // Last chance for records the disk refused (it may have space again): the next server reads these.
      clearTimeout(retryTimer);
      await retryUnsaved();
      for (const [id, record] of unsaved) {
        deps.log.error('job %s: its %s record could not be written before shutdown; the next server will not know how it ended', id, record.status);
      }
    },
  };
}
