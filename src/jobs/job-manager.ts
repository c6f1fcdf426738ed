/**
 * The job service behind run_agent, wait_job, cancel_job and friends: creates
 * records, queues jobs until an endpoint has a free slot, starts them, and
 * answers questions about them. One instance per server process.
 */
import { join } from 'node:path';
import type { Prober } from '../backends/probe.js';
import type { EndpointProbe } from '../backends/types.js';
import type { Config } from '../config/schema.js';
import { watchCancelRequests } from '../coord/cancel-requests.js';
import { readRegularFile } from '../coord/regular-file.js';
import { isErrno } from '../errors.js';
import { pathError } from '../path-errors.js';
import { createSlotBoard, type BoardView, type SlotBoard } from '../coord/slot-board.js';
import { errorMessage, isLocalAgentsError } from '../errors.js';
import type { Logger } from '../log.js';
import { findMenuEntry, resolveModel, type Resolution } from '../registry/resolve.js';
import type { EndpointJobs, EndpointLoad } from '../registry/slot-use.js';
import type { Shim } from '../shim/routes.js';
import { checkJobId, newJobId } from './job-id.js';
import { FINISHED, type JobRecord } from './job-record.js';
import type { FailoverDeps } from './failover.js';
import { runPlacedJob, type PlacedJob } from './job-run.js';
import type { JobListing, JobPaths, JobStore } from './job-store.js';
import type { LiveThresholds } from './live-requests.js';
import { place, type Placement } from './placement.js';
import { newQueuedRecord, resumeTarget, sessionBusy } from './new-job.js';
import { settleSettings, type JobSettings, type RunRequest } from './run-request.js';
import { cancelElsewhere, watchRecord, type OtherProcessDeps } from './other-process-jobs.js';
import { createRecordSaver } from './record-saver.js';
import { runningRecord } from './running-record.js';
import { prepareWorktree, type PreparedWorktree } from './worktree.js';

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
  /** How often a non-empty queue re-probes for free slots (a change on the slot board also wakes it). */
  readonly queuePollMs?: number;
  /** Where processes sharing the state directory agree on slots; default: the board in `stateDir`. */
  readonly board?: SlotBoard;
  /** When an open backend request is flagged silent or runaway. */
  readonly liveThresholds?: LiveThresholds | undefined;
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

/** What list_models needs: fresh probes, and per endpoint the slot leases by process and the queue. */
export interface JobsSnapshot {
  readonly probes: EndpointProbe[];
  jobsOf(endpoint: string): EndpointJobs;
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
  snapshot(config: Config): Promise<JobsSnapshot>;
  /** Re-check the queue now (a job ended, an endpoint was registered); resolves when that pass is done. */
  pump(): Promise<void>;
  close(): Promise<void>;
}

export function createJobManager(deps: JobManagerDeps): JobManager {
  const board = deps.board ?? createSlotBoard(deps.stateDir, { onLocalFallback: (reason) => deps.log.error('slot board: %s', reason) });
  const queue: QueuedJob[] = [];
  const active = new Map<string, Active>();
  /**
   * Every job of this process from enqueue until it ends, whatever stage it is in:
   * a wait must not miss a job moving from the queue to running (issue 14).
   */
  const owned = new Map<string, Promise<JobRecord>>();
  /** Jobs between the queue and running (their worktree is being made): resolves once running or ended. */
  const starting = new Map<string, Promise<void>>();
  const warmEndpointByTree = new Map<string, string>();
  let pumping: Promise<void> | undefined;
  let pumpAgain: Promise<void> | undefined;
  let pollTimer: NodeJS.Timeout | undefined;
  let stopBoardWatch: (() => void) | undefined;
  let closed = false;
  /** The probe run_agent just made to validate the request: the placement pass right after reuses it. */
  let recentProbe: Observation | undefined;
  const RECENT_PROBE_MS = 1000;

  /**
   * Records the disk would not take are still reported by this process (get, list) and written
   * again until the disk takes them: a job that succeeded on a full disk must not read back as
   * `interrupted` to the next server.
   */
  const saver = createRecordSaver({ write: (record) => deps.store.save(record), log: deps.log, latest: (id) => current(id) });
  const save = saver.save;

  /** Frees the job's ticket (and lease) on the slot board, then lets the queues of every process move. */
  const release = async (id: string): Promise<void> => {
    try {
      await board.release(id);
    } catch (err) {
      // Not fatal: the entry goes when this process ends (its PID + start time no longer match).
      deps.log.error('slot board: %s', errorMessage(err));
    }
  };

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

  /** A running job moving to another endpoint serving its model places like a new one (src/jobs/failover.ts). */
  const failover: FailoverDeps = { loadConfig: deps.loadConfig, observe, board };

  const loadOf = (seen: Observation, view: BoardView) => (endpoint: string): EndpointLoad => ({
    ...view.leasesOn(endpoint),
    ourInFlight: seen.ourInFlight.get(endpoint) ?? 0,
  });

  const modelOf = (request: RunRequest, record: JobRecord): string => request.model ?? record.model.requested ?? '(default)';
  const requestedModel = (q: QueuedJob): string => modelOf(q.request, q.record);
  /** The FIFO a job waits in: its model, and the endpoint it is pinned to. */
  const fifoOf = (request: RunRequest, record: JobRecord): string => `${modelOf(request, record)}${request.endpoint ? `@${request.endpoint}` : ''}`;

  const settleQueued = async (q: QueuedJob, patch: Partial<JobRecord>): Promise<void> => {
    const at = queue.indexOf(q);
    if (at >= 0) queue.splice(at, 1);
    q.record = { ...q.record, ...patch, queue: undefined, finished_at: new Date().toISOString() };
    await save(q.record);
    await release(q.record.id);
    q.finish(q.record);
  };

  /** Starts a job whose slot lease is already on the board. */
  const startPlaced = async (q: QueuedJob, placement: Placement): Promise<void> => {
    const { candidate } = placement;
    let worktree: PreparedWorktree | undefined;
    if (q.settings.isolation === 'worktree') {
      try {
        worktree = await prepareWorktree(q.settings.cwd, join(deps.stateDir, 'worktrees'), q.record.id);
      } catch (err) {
        await settleQueued(q, { status: 'failed', error: errorMessage(err) });
        void pump();
        return;
      }
    }
    const workDir = worktree?.workDir ?? q.settings.cwd;
    warmEndpointByTree.set(q.settings.cwd, candidate.endpoint.name);
    const job: PlacedJob = {
      record: runningRecord(q.record, placement, worktree, workDir, new Date().toISOString()),
      paths: q.paths,
      task: q.task,
      settings: q.settings,
      endpoint: candidate.endpoint,
      servedModel: candidate.model.id,
      context: candidate.context,
      vision: candidate.vision,
      worktree,
      workDir,
      resumeSession: q.resumeSession,
      abort: new AbortController(),
      stopReason: undefined,
    };
    let markStarted!: () => void;
    const started = new Promise<void>((resolve) => {
      markStarted = resolve;
    });
    const done = started
      .then(() => runPlacedJob(job, { shim: deps.shim, log: deps.log, parentEnv: deps.parentEnv, stateDir: deps.stateDir, claudeExecutable: deps.claudeExecutable, save, liveThresholds: deps.liveThresholds, failover }))
      .catch(async (err: unknown) => {
        job.record = { ...job.record, status: 'failed', error: `localagents failed to run the job: ${errorMessage(err)}`, finished_at: new Date().toISOString() };
        await save(job.record);
        return job.record;
      })
      .finally(async () => {
        active.delete(q.record.id);
        await release(q.record.id);
        void pump();
      });
    active.set(q.record.id, { job, done });
    void done.then(q.finish);
    await save(job.record);
    markStarted();
  };

  /** Resolves every queued job now; those whose model is gone past the grace period fail. */
  const resolveQueued = async (seen: Observation): Promise<Map<QueuedJob, Resolution>> => {
    const resolved = new Map<QueuedJob, Resolution>();
    for (const q of [...queue]) {
      try {
        resolved.set(q, resolveModel(seen.config, seen.probes, { model: q.request.model ?? q.record.model.requested, endpoint: q.request.endpoint }));
        q.lastServedAt = Date.now();
      } catch (err) {
        const graceMs = seen.config.defaults.queue_grace_s * 1000;
        if (isLocalAgentsError(err) && (err.code !== 'model_unavailable' || Date.now() - q.lastServedAt >= graceMs)) {
          await settleQueued(q, { status: 'failed', error: err.forRecord, error_code: err.code });
        }
      }
    }
    return resolved;
  };

  const pumpOnce = async (): Promise<void> => {
    if (queue.length === 0) return;
    const fresh = recentProbe !== undefined && performance.now() - recentProbe.at < RECENT_PROBE_MS ? recentProbe : undefined;
    recentProbe = undefined;
    const seen = fresh ?? (await observe(await deps.loadConfig()));
    const resolved = await resolveQueued(seen);
    // Under the board's lock: every process's leases and FIFOs, so placements never overbook and never overtake.
    const { placed, positions } = await board.change((draft) => {
      const chosen: [QueuedJob, Placement][] = [];
      for (const q of queue) {
        const id = q.record.id;
        if (draft.ticket(id) === undefined) draft.enqueue({ job: id, model: fifoOf(q.request, q.record) }); // the board was lost: queue again
        const resolution = resolved.get(q);
        if (resolution === undefined) continue;
        draft.setCandidates(id, resolution.candidates.map((c) => c.endpoint.name));
        const open = resolution.candidates.filter((c) => draft.aheadOf(id, c.endpoint.name) === undefined);
        const placement = place({
          candidates: open,
          loadOf: loadOf(seen, draft),
          warmEndpoint: warmEndpointByTree.get(q.settings.cwd),
          pinnedEndpoint: resolution.pinnedEndpoint,
          preferredEndpoint: resolution.preferredEndpoint,
          preferredMissing: resolution.preferredMissing,
        });
        if (placement === undefined) continue;
        draft.lease(id, placement.candidate.endpoint.name);
        chosen.push([q, placement]);
      }
      return { placed: chosen, positions: new Map(queue.map((q) => [q, draft.position(q.record.id)])) };
    });
    for (const [q] of placed) queue.splice(queue.indexOf(q), 1);
    await Promise.all(placed.map(([q, placement]) => {
      const started = startPlaced(q, placement).finally(() => starting.delete(q.record.id));
      starting.set(q.record.id, started);
      return started;
    }));
    // Positions across processes and what each waits for, for job_status.
    for (const q of queue) {
      const position = positions.get(q) ?? 0;
      if (q.record.queue?.position === position) continue;
      q.record = { ...q.record, queue: { position, waiting_for: `a free slot for ${requestedModel(q)}${q.request.endpoint ? ` on ${q.request.endpoint}` : ''}` } };
      await save(q.record);
    }
  };

  /** While jobs wait, a change on the board (another process's job ended) re-runs placement at once, not at the next poll. */
  const syncBoardWatch = (): void => {
    if (queue.length > 0 && !closed) stopBoardWatch ??= board.watch(() => void pump());
    else {
      stopBoardWatch?.();
      stopBoardWatch = undefined;
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
        syncBoardWatch();
        if (queue.length > 0 && !closed && pumpAgain === undefined) pollTimer = setTimeout(() => void pump(), deps.queuePollMs ?? 2000);
      }
    })();
    return pumping;
  }

  const enqueue = async (request: RunRequest): Promise<QueuedJob> => {
    const config = await deps.loadConfig();
    // Still running here: its record (in memory) has not ended. Once it has, the session is free even if the job is still being wound up.
    const busy = (id: string): boolean => owned.has(id) && !FINISHED.has(current(id)?.status ?? 'running');
    const { effective, resumeSession, menuEntry: resumedEntry } = await resumeTarget(deps.store, request, busy);
    const requested = effective.model ?? config.defaults.model;
    const entryName = resumedEntry ?? requested;
    const menuEntry = entryName === undefined ? undefined : findMenuEntry(config, entryName);
    const settings = await settleSettings(effective, config, deps.defaultCwd, deps.parentEnv, menuEntry);
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
      requestedModel: requested,
      menuEntry: menuEntry?.name,
      logDir: deps.store.paths(id).dir,
      settings,
      resumedFrom: request.resumeJob,
      sessionId: resumeSession,
    });
    // The ticket fixes this job's place in its FIFO across processes, and claims a resumed session for it.
    const holder = resumeSession === undefined ? undefined : (await board.read()).sessionHolder(resumeSession);
    const endedHolder = holder !== undefined && FINISHED.has((await get(holder).catch(() => undefined))?.status ?? 'running') ? holder : undefined;
    const { sessionHeldBy } = await board.enqueue({ job: id, model: fifoOf(effective, record), session: resumeSession, endedHolder });
    if (sessionHeldBy !== undefined) throw sessionBusy(request.resumeJob ?? id, sessionHeldBy);
    const paths = await deps.store.create(record, request.task);
    let finish!: (r: JobRecord) => void;
    const done = new Promise<JobRecord>((resolve) => {
      finish = resolve;
    });
    owned.set(id, done);
    void done.finally(() => owned.delete(id));
    const q: QueuedJob = { record, paths, task: request.task, settings, request: effective, resumeSession, lastServedAt: Date.now(), done, finish };
    queue.push(q);
    return q;
  };

  const current = (id: string): JobRecord | undefined =>
    active.get(id)?.job.record ?? queue.find((q) => q.record.id === id)?.record ?? saver.unsaved(id);

  const get = async (id: string): Promise<JobRecord> => current(checkJobId(id)) ?? deps.store.load(id);

  const elsewhere: OtherProcessDeps = { stateDir: deps.stateDir, log: deps.log, get: (id) => get(id) };

  const cancelLocal = async (id: string): Promise<JobRecord | undefined> => {
    const queued = queue.find((q) => q.record.id === id);
    if (queued) {
      await settleQueued(queued, { status: 'cancelled', error: 'cancelled on request before it started' });
      return queued.record;
    }
    const running = active.get(id);
    if (running) {
      running.job.stopReason ??= 'cancelled';
      running.job.abort.abort();
      return running.done;
    }
    return undefined;
  };

  const stopCancelWatch = watchCancelRequests(deps.stateDir, () => new Set(owned.keys()), (id) => {
    deps.log.info('job %s: cancel requested by another localagents process', id);
    void cancelLocal(id);
  });

  return {
    async start(request) {
      const q = await enqueue(request);
      // One placement pass, so the answer says running, or queued with a position.
      await pump();
      return current(q.record.id) ?? q.record;
    },
    async wait(id, timeoutS) {
      checkJobId(id);
      const deadline = Date.now() + timeoutS * 1000;
      const done = owned.get(id);
      if (done === undefined) return watchRecord(elsewhere, id, deadline);
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
      await starting.get(id); // leaving the queue: cancelled once it runs (its worktree is being made)
      const record = await cancelLocal(id);
      if (record !== undefined) return record;
      // Ours but already ending (or ended): its final record; otherwise another process's job.
      return owned.get(id) ?? cancelElsewhere(elsewhere, id);
    },
    get,
    async list(includeFinished, newest) {
      const { records, damaged } = await deps.store.list(includeFinished ? newest : undefined);
      const onDisk = new Set(records.map((r) => r.id));
      // Ids sort by the clock at creation: a job made while the clock was set back sorts among old ones,
      // outside the newest N, so this process's own live jobs are always added.
      const ours = [...active.values()].map((a) => a.job.record).concat(queue.map((q) => q.record));
      const memoryOnly = [...saver.unsavedRecords(), ...ours].filter((r) => !onDisk.has(r.id));
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
        text = (await readRegularFile(paths.transcript)).toString('utf8');
      } catch (err) {
        if (isErrno(err, 'ENOENT')) return ''; // no session output yet
        throw pathError(err) ?? err;
      }
      return text.split('\n').filter(Boolean).slice(-lines).join('\n');
    },
    async snapshot(config) {
      const [seen, view] = await Promise.all([observe(config), board.read()]);
      return {
        probes: seen.probes,
        jobsOf: (endpoint) => ({
          load: loadOf(seen, view)(endpoint),
          queue: view.queueFor(endpoint).map(({ ticket, position }) => ({
            position,
            job_id: ticket.job,
            model: ticket.model,
            owner_pid: ticket.owner.pid,
            this_process: view.mine(ticket),
          })),
        }),
      };
    },
    pump,
    async close() {
      closed = true;
      clearTimeout(pollTimer);
      stopCancelWatch();
      syncBoardWatch();
      for (const a of active.values()) {
        a.job.stopReason ??= 'shutdown';
        a.job.abort.abort();
      }
      await Promise.allSettled([...active.values()].map((a) => a.done));
      // Last chance for records the disk refused (it may have space again): the next server reads these.
      await saver.flush();
      // Queued jobs of ours leave the FIFOs of the other processes now, not when they notice we are gone.
      await board.releaseAll().catch((err: unknown) => deps.log.error('slot board: %s', errorMessage(err)));
    },
  };
}
