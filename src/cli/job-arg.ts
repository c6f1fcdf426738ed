/**
 * A JOB argument on the command line: a full id, a unique prefix (of the id or
 * of its random part) or `last`, resolved and the record loaded, with errors
 * worded for a shell user (exit 2, and `localagents jobs --all`).
 */
import type { App } from '../app.js';
import { BadArgumentError, isLocalAgentsError } from '../errors.js';
import type { JobRecord } from '../jobs/job-record.js';

const LIST_HINT = 'localagents jobs --all lists the jobs on record.';

/** The job id `ref` stands for; "not a job id", "no such job" and "which one?" become bad_argument errors. */
export async function resolveJobArg(app: App, ref: string): Promise<string> {
  try {
    return await app.resolveJob(ref);
  } catch (err) {
    if (isLocalAgentsError(err)) throw new BadArgumentError('JOB', err.message, { hint: LIST_HINT, details: { job_id: ref }, cause: err });
    throw err;
  }
}

export async function loadJob(app: App, ref: string): Promise<JobRecord> {
  const id = await resolveJobArg(app, ref);
  try {
    return await app.jobs.get(id);
  } catch (err) {
    if (isLocalAgentsError(err) && err.code === 'unknown_job') throw new BadArgumentError('JOB', err.message, { hint: LIST_HINT, details: { job_id: id }, cause: err });
    throw err;
  }
}
