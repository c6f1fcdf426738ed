/**
 * This process's jobs, from enqueue until they end, each in one explicit stage:
 * `queued` (waiting in its FIFO), `starting` (its slot is leased; its worktree
 * is being made), `running` (its session is open), `ended` (its final record
 * is being saved). A wait or a cancel finds a job whatever its stage, so
 * nothing has to sleep across a hand-over (issue 14).
 */
import type { JobRecord } from '../record/job-record.js';
import type { PlacedJob } from '../session/job-run.js';
import type { JobPaths } from '../record/job-store.js';
import type { JobSettings, RunRequest } from '../session/run-request.js';

export interface QueuedJob {
  record: JobRecord;
  readonly paths: JobPaths;
  readonly task: string;
  readonly settings: JobSettings;
  readonly request: RunRequest;
  readonly resumeSession: string | undefined;
  /** Last time (performance.now()) some live endpoint served the model; the grace period counts from here. */
  lastServedAt: number;
  /** What a router-mode server made it wait for, told afterwards (its record's endpoint reason says it once it runs). */
  routerWaited?: string | undefined;
  /** Resolves with the final record, whichever stage the job ended in. */
  readonly done: Promise<JobRecord>;
  readonly finish: (record: JobRecord) => void;
}

export type Stage =
  | { readonly name: 'queued' }
  /** `started` resolves once the job runs or has ended. */
  | { readonly name: 'starting'; readonly started: Promise<void> }
  | { readonly name: 'running'; readonly job: PlacedJob; readonly done: Promise<JobRecord> }
  /** Settled without running (cancelled or failed in the queue): out of the FIFO, its record final. */
  | { readonly name: 'ended' };

export interface LocalJob {
  readonly queued: QueuedJob;
  stage: Stage;
}

export interface LocalJobs {
  /** A new job, queued; it leaves the table when its `done` resolves. */
  add(queued: QueuedJob): void;
  get(id: string): LocalJob | undefined;
  /** Moves the job to `stage`; a no-op for a job that has already ended. */
  move(id: string, stage: Stage): void;
  /** The queued jobs, first come first: the order they were added in. */
  queue(): QueuedJob[];
  /** The running jobs' sessions, to stop them at shutdown. */
  running(): { readonly job: PlacedJob; readonly done: Promise<JobRecord> }[];
  /** The job's record as it stands now (running: the live one). */
  record(id: string): JobRecord | undefined;
  records(): JobRecord[];
  ids(): string[];
}

export function createLocalJobs(): LocalJobs {
  const jobs = new Map<string, LocalJob>();
  const recordOf = (job: LocalJob): JobRecord => (job.stage.name === 'running' ? job.stage.job.record : job.queued.record);
  return {
    add(queued) {
      const id = queued.record.id;
      jobs.set(id, { queued, stage: { name: 'queued' } });
      void queued.done.finally(() => jobs.delete(id));
    },
    get: (id) => jobs.get(id),
    move(id, stage) {
      const job = jobs.get(id);
      if (job !== undefined) job.stage = stage;
    },
    queue: () => [...jobs.values()].filter((j) => j.stage.name === 'queued').map((j) => j.queued),
    running: () => [...jobs.values()].flatMap(({ stage }) => (stage.name === 'running' ? [stage] : [])),
    record(id) {
      const job = jobs.get(id);
      return job === undefined ? undefined : recordOf(job);
    },
    records: () => [...jobs.values()].map(recordOf),
    ids: () => [...jobs.keys()],
  };
}
