/**
 * A JOB argument on the command line: a full id, a unique prefix (of the id or
 * of its random part) or `last`, resolved and the record loaded, with errors
 * worded for a shell user (exit 2, and `localagents jobs --all`).
 */
import type { App } from '../app.js';
import { BadArgumentError, isLocalAgentsError } from '../errors.js';
import { isJobId } from '../jobs/record/job-id.js';
import type { JobRecord } from '../jobs/record/job-record.js';
import { resolveJobRef } from '../jobs/record/job-ref.js';
import type { JobStore } from '../jobs/record/job-store.js';

const LIST_HINT = 'localagents jobs --all lists the jobs on record.';

/** "Not a job id", "no such job" and "which one?" become bad_argument errors about JOB; anything else (a damaged record) stays itself. */
async function asJobArg(ref: string, find: () => Promise<JobRecord>): Promise<JobRecord> {
  try {
    return await find();
  } catch (err) {
    if (isLocalAgentsError(err) && (err.code === 'unknown_job' || err.code === 'bad_argument')) {
      throw new BadArgumentError('JOB', err.message, { hint: LIST_HINT, details: { job_id: ref }, cause: err });
    }
    throw err;
  }
}

/** Read from the state directory without the app (`jobs`, `show`: a command's own process runs no jobs but `run`'s). */
export function loadJob(store: Pick<JobStore, 'ids' | 'load'>, ref: string): Promise<JobRecord> {
  return asJobArg(ref, async () => {
    // A full id on record needs no listing of the 10,000 others; one that is not gets the lookup's did-you-mean.
    if (isJobId(ref)) {
      try {
        return await store.load(ref);
      } catch (err) {
        if (!isLocalAgentsError(err) || err.code !== 'unknown_job') throw err;
      }
    }
    return store.load(resolveJobRef(ref, await store.ids()));
  });
}

/** Through the app, for the commands that build one. */
export function appJob(app: Pick<App, 'resolveJob' | 'jobs'>, ref: string): Promise<JobRecord> {
  return asJobArg(ref, async () => app.jobs.get(await app.resolveJob(ref)));
}
