/**
 * A JOB argument on the command line: the id checked and the record loaded,
 * with errors worded for a shell user (exit 2, and `localagents jobs --all`
 * instead of the MCP tool names).
 */
import type { App } from '../app.js';
import { BadArgumentError, isLocalAgentsError } from '../errors.js';
import type { JobRecord } from '../jobs/job-record.js';

const LIST_HINT = 'localagents jobs --all lists the jobs on record.';

/** Runs `use` on a job id, turning "not a job id" and "no such job" into bad_argument errors. */
export async function withJobArg<T>(id: string, use: (id: string) => Promise<T>): Promise<T> {
  try {
    return await use(id);
  } catch (err) {
    if (isLocalAgentsError(err) && (err.code === 'unknown_job' || (err.code === 'bad_argument' && err.details.argument === 'job_id'))) {
      const message = err.code === 'unknown_job' ? err.message : `"${id.slice(0, 80)}" is not a job id; expected the form 20261129-111500-7gk2mq4xrz9d`;
      throw new BadArgumentError('JOB', message, { hint: LIST_HINT, details: { job_id: id }, cause: err });
    }
    throw err;
  }
}

export function loadJob(app: App, id: string): Promise<JobRecord> {
  return withJobArg(id, (checked) => app.jobs.get(checked));
}
