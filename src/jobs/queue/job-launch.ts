/**
 * From a leased slot to a running job: makes the worktree (if the job asked for
 * one), writes the running record, and runs the session; when the run ends,
 * however it ends, the slot is released and the queue moves on.
 */
import { join } from 'node:path';
import { errorMessage } from '../../errors.js';
import type { JobRecord } from '../record/job-record.js';
import { runPlacedJob, type PlacedJob, type RunDeps } from '../session/job-run.js';
import type { LocalJobs, QueuedJob } from './local-jobs.js';
import type { Placement } from '../placement/placement.js';
import { awaitRouterModel } from './router-model-load.js';
import { runningRecord } from './running-record.js';
import { prepareWorktree, type PreparedWorktree } from '../git/worktree.js';

export interface LaunchDeps {
  readonly jobs: LocalJobs;
  readonly run: RunDeps;
  /** Ends a job that could not start (its record says why). */
  readonly settle: (q: QueuedJob, patch: Partial<JobRecord>) => Promise<void>;
  /** Frees the job's slot on the board. */
  readonly release: (id: string) => Promise<void>;
  /** Re-checks the queue (a slot is free, or a start failed). */
  readonly pump: () => Promise<void>;
}

/** The job as it runs on its endpoint, in its worktree or its own directory. Pure. */
export function placedJob(q: QueuedJob, placement: Placement, worktree: PreparedWorktree | undefined, startedAt: string): PlacedJob {
  const { candidate } = placement;
  const workDir = worktree?.workDir ?? q.settings.cwd;
  return {
    record: runningRecord(q.record, placement, worktree, workDir, startedAt),
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
    cancelledBy: undefined,
  };
}

/** Starts a job whose slot lease is already on the board; true once it runs, false when it failed first. */
export async function launchJob(q: QueuedJob, placed: Placement, deps: LaunchDeps): Promise<boolean> {
  const id = q.record.id;
  const placement = await awaitRouterModel(q, placed, deps.run.save);
  if ('error' in placement) {
    await deps.settle(q, { status: 'failed', error: placement.error });
    void deps.pump();
    return false;
  }
  let worktree: PreparedWorktree | undefined;
  if (q.settings.isolation === 'worktree') {
    try {
      worktree = await prepareWorktree(q.settings.cwd, join(deps.run.stateDir, 'worktrees'), id);
    } catch (err) {
      await deps.settle(q, { status: 'failed', error: errorMessage(err) });
      void deps.pump();
      return false;
    }
  }
  const job = placedJob(q, placement, worktree, new Date().toISOString());
  let markSaved!: () => void;
  const saved = new Promise<void>((resolve) => {
    markSaved = resolve;
  });
  // The session starts only once the running record is on disk (or kept by the saver).
  const done = saved
    .then(() => runPlacedJob(job, deps.run))
    .catch(async (err: unknown) => {
      job.record = { ...job.record, status: 'failed', error: `localagents failed to run the job: ${errorMessage(err)}`, finished_at: new Date().toISOString() };
      await deps.run.save(job.record);
      return job.record;
    })
    .finally(async () => {
      await deps.release(id);
      void deps.pump();
    });
  deps.jobs.move(id, { name: 'running', job, done });
  void done.then(q.finish);
  await deps.run.save(job.record);
  markSaved();
  return true;
}
