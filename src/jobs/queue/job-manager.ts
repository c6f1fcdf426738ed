/**
 * The job service behind run_agent, wait_job, cancel_job and friends: one
 * instance per server process, wiring the parts that each do one thing — the
 * queue and placement pump (job-queue.ts), the start of a placed job
 * (job-launch.ts), durable record saves (record-saver.ts), this process's jobs
 * by stage (local-jobs.ts) and the jobs of other processes (other-process-jobs.ts).
 */
import { byWhom } from '../session/final-status.js';
import type { Prober } from '../../backends/probe.js';
import type { Config } from '../../config/schema.js';
import { watchCancelRequests } from '../../coord/cancel-requests.js';
import { readRegularFile } from '../../coord/regular-file.js';
import { createSlotBoard } from '../../coord/slot-board.js';
import { errorMessage, isErrno } from '../../errors.js';
import type { Logger } from '../../log.js';
import { pathError } from '../../path-errors.js';
import type { Shim } from '../../shim/routes.js';
import type { ShimServer } from '../../shim/server.js';
import { checkJobId } from '../record/job-id.js';
import { enqueueJob } from './job-enqueue.js';
import { launchJob } from './job-launch.js';
import { createJobQueue } from './job-queue.js';
import { FINISHED, type JobRecord } from '../record/job-record.js';
import type { JobListing, JobStore } from '../record/job-store.js';
import { createLocalJobs, type LocalJobs, type QueuedJob } from './local-jobs.js';
import { jobsSnapshot, observe, type JobsSnapshot, type Observation } from '../placement/observation.js';
import { cancelElsewhere, watchRecord, type OtherProcessDeps } from './other-process-jobs.js';
import { createRecordSaver } from '../record/record-saver.js';
import type { RunRequest } from '../session/run-request.js';

export interface JobManagerDeps {
  readonly loadConfig: () => Promise<Config>;
  readonly prober: Prober;
  readonly shim: Shim & Pick<ShimServer, 'requests'>;
  readonly store: JobStore;
  readonly stateDir: string;
  readonly log: Logger;
  readonly parentEnv: Readonly<Record<string, string | undefined>>;
  readonly defaultCwd: string;
  readonly claudeExecutable?: string | undefined;
}

export interface JobManager {
  start(request: RunRequest): Promise<JobRecord>;
  wait(id: string, timeoutS: number): Promise<JobRecord>;
  /** `by` names who asked, for the record's error (e.g. "the caller's TaskStop"). */
  cancel(id: string, by?: string): Promise<JobRecord>;
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

/** The disk's records with this process's newer ones laid over them, and its jobs the disk does not have yet. */
function mergedListing(onDisk: JobListing, ours: readonly JobRecord[], current: (id: string) => JobRecord | undefined, includeFinished: boolean): JobListing {
  const known = new Set(onDisk.records.map((r) => r.id));
  // Ids sort by the clock at creation: a job made while the clock was set back sorts among old ones,
  // outside the newest N, so this process's own live jobs are always added.
  const byId = new Map([...onDisk.records, ...ours.filter((r) => !known.has(r.id))].map((r) => [r.id, current(r.id) ?? r]));
  const live = [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
  return { records: includeFinished ? live : live.filter((r) => !FINISHED.has(r.status)), damaged: onDisk.damaged.filter((d) => !byId.has(d.id)) };
}

/** The last `lines` lines of the session's transcript; empty before it has any. */
async function transcriptTail(file: string, lines: number): Promise<string> {
  let text: string;
  try {
    text = (await readRegularFile(file)).toString('utf8');
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return '';
    throw pathError(err) ?? err;
  }
  return text.split('\n').filter(Boolean).slice(-lines).join('\n');
}

/** Our job's final record, or what it is after `timeoutS` if it has not ended by then. */
async function waitLocal(done: Promise<JobRecord>, timeoutS: number, now: () => Promise<JobRecord>): Promise<JobRecord> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutS * 1000);
  });
  const finished = await Promise.race([done, timeout]);
  clearTimeout(timer);
  return finished ?? (await now());
}

/** Asks our job to stop in whatever stage it is: a queued one ends at once, a starting one once it runs. */
async function cancelLocal(jobs: LocalJobs, id: string, settle: (q: QueuedJob, patch: Partial<JobRecord>) => Promise<void>, by?: string): Promise<JobRecord | undefined> {
  const local = jobs.get(id);
  if (local === undefined) return undefined;
  const { stage } = local;
  switch (stage.name) {
    case 'queued':
      await settle(local.queued, { status: 'cancelled', error: `cancelled on request${byWhom(by)} before it started` });
      return local.queued.record;
    case 'starting':
      await stage.started; // its worktree is being made: cancelled once it runs
      return cancelLocal(jobs, id, settle, by);
    case 'running':
      stage.job.stopReason ??= 'cancelled';
      stage.job.cancelledBy ??= by;
      stage.job.abort.abort();
      return stage.done;
    case 'ended':
      return local.queued.done;
  }
}

export function createJobManager(deps: JobManagerDeps): JobManager {
  const board = createSlotBoard(deps.stateDir, { onLocalFallback: (reason) => deps.log.error('slot board: %s', reason) });
  const jobs = createLocalJobs();
  const current = (id: string): JobRecord | undefined => jobs.record(id) ?? saver.unsaved(id);
  const get = async (id: string): Promise<JobRecord> => current(checkJobId(id)) ?? deps.store.load(id);
  /** Records the disk would not take are still reported by this process, and written again until it takes them. */
  const saver = createRecordSaver({ write: (record) => deps.store.save(record), log: deps.log, latest: current });
  const save = saver.save;
  /**
   * Calls that come while a look at the servers is under way (sixteen run_agent at once, list_models from several
   * windows) share it. A look each queued their probes behind one another in the prober's connection pool, past
   * the probe timeout, and a server that was only busy read as down.
   */
  let looking: { config: Config; seen: Promise<Observation> } | undefined;
  const look = (config: Config): Promise<Observation> => {
    if (looking?.config === config) return looking.seen;
    const seen: Promise<Observation> = observe(config, deps.prober, deps.shim).finally(() => {
      if (looking?.seen === seen) looking = undefined;
    });
    looking = { config, seen };
    return seen;
  };
  const release = async (id: string): Promise<void> => {
    // Not fatal: the entry goes when this process ends (its PID + start time no longer match).
    await board.release(id).catch((err: unknown) => deps.log.error('slot board: %s', errorMessage(err)));
  };
  const run = { shim: deps.shim, log: deps.log, parentEnv: deps.parentEnv, stateDir: deps.stateDir, claudeExecutable: deps.claudeExecutable, save, failover: { loadConfig: deps.loadConfig, observe: look, board } };
  const queue = createJobQueue({ jobs, board, loadConfig: deps.loadConfig, observe: look, save, release, log: deps.log, launch: (q, placement) => launchJob(q, placement, { jobs, run, settle: queue.settle, release, pump: queue.pump }) });
  const elsewhere: OtherProcessDeps = { stateDir: deps.stateDir, log: deps.log, get };
  // Still running here: its record (in memory) has not ended. Once it has, the session is free even if the job is still being wound up.
  const busy = (id: string): boolean => jobs.get(id) !== undefined && !FINISHED.has(current(id)?.status ?? 'running');
  const stopCancelWatch = watchCancelRequests(deps.stateDir, () => new Set(jobs.ids()), (id) => {
    deps.log.info('job %s: cancel requested by another localagents process', id);
    void cancelLocal(jobs, id, queue.settle);
  });

  return {
    async start(request) {
      const { queued, seen } = await enqueueJob({ loadConfig: deps.loadConfig, observe: look, store: deps.store, board, defaultCwd: deps.defaultCwd, parentEnv: deps.parentEnv, busy, get }, request);
      jobs.add(queued);
      queue.reuseProbe(seen);
      // One placement pass, so the answer says running, or queued with a position.
      await queue.pump();
      return current(queued.record.id) ?? queued.record;
    },
    async wait(id, timeoutS) {
      const local = jobs.get(checkJobId(id));
      if (local === undefined) return watchRecord(elsewhere, id, timeoutS * 1000);
      return waitLocal(local.queued.done, timeoutS, () => get(id));
    },
    async cancel(id, by) {
      // Ours: stopped in whatever stage it is; otherwise another process's job, asked through the cancel inbox.
      return (await cancelLocal(jobs, checkJobId(id), queue.settle, by)) ?? cancelElsewhere(elsewhere, id);
    },
    get,
    async list(includeFinished, newest) {
      const onDisk = await deps.store.list(includeFinished ? newest : undefined);
      return mergedListing(onDisk, [...saver.unsavedRecords(), ...jobs.records()], current, includeFinished);
    },
    async tail(id, lines) {
      const file = deps.store.paths(checkJobId(id)).transcript;
      await get(id);
      return transcriptTail(file, lines);
    },
    async snapshot(config) {
      const [seen, view] = await Promise.all([look(config), board.read()]);
      return jobsSnapshot(seen, view);
    },
    pump: () => queue.pump(),
    async close() {
      queue.close();
      stopCancelWatch();
      const running = jobs.running();
      for (const { job } of running) {
        job.stopReason ??= 'shutdown';
        job.abort.abort();
      }
      await Promise.allSettled(running.map((r) => r.done));
      // Last chance for records the disk refused (it may have space again): the next server reads these.
      await saver.flush();
      // Queued jobs of ours leave the FIFOs of the other processes now, not when they notice we are gone.
      await board.releaseAll().catch((err: unknown) => deps.log.error('slot board: %s', errorMessage(err)));
    },
  };
}
