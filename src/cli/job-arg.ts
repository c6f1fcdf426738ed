/**
 * A JOB argument on the command line: a full id, a unique prefix (of the id or
 * of its random part) or `last`, resolved and the record loaded, with errors
 * worded for a shell user (exit 2, and `localagents jobs --all`).
 */
import { BadArgumentError, isLocalAgentsError } from '../errors.js';
import { isJobId } from '../jobs/job-id.js';
import type { JobRecord } from '../jobs/job-record.js';
import { resolveJobRef } from '../jobs/job-ref.js';
import type { JobStore } from '../jobs/job-store.js';

const LIST_HINT = 'localagents jobs --all lists the jobs on record.';

/** The job id `ref` stands for; "not a job id", "no such job" and "which one?" become bad_argument errors. */
export async function resolveJobArg(store: Pick<JobStore, 'ids'>, ref: string): Promise<string> {
  try {
    return resolveJobRef(ref, await store.ids());
  } catch (err) {
    if (isLocalAgentsError(err)) throw new BadArgumentError('JOB', err.message, { hint: LIST_HINT, details: { job_id: ref }, cause: err });
    throw err;
  }
}

/** Read from the state directory (a command's own process runs no jobs but `run`'s, which never asks). */
export async function loadJob(store: Pick<JobStore, 'ids' | 'load'>, ref: string): Promise<JobRecord> {
  // A full id on record needs no listing of the 10,000 others; one that is not gets the lookup's did-you-mean.
  if (isJobId(ref)) {
    try {
      return await store.load(ref);
    } catch (err) {
      if (!isLocalAgentsError(err) || err.code !== 'unknown_job') throw err;
    }
  }
  const id = await resolveJobArg(store, ref);
  try {
    return await store.load(id);
  } catch (err) {
    if (isLocalAgentsError(err) && err.code === 'unknown_job') throw new BadArgumentError('JOB', err.message, { hint: LIST_HINT, details: { job_id: id }, cause: err });
    throw err;
  }
}
