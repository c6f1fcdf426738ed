/**
 * A tool's job id argument: the full id, a unique prefix of it or of its
 * random part, or `last`, resolved among the jobs on record by the same rule
 * as the command line's JOB (src/jobs/record/job-ref.ts), with the hint for the model.
 */
import { z } from 'zod';
import type { App } from '../app.js';
import { LIST_JOBS_HINT } from './guidance.js';


/** The schema field: any non-empty string; resolveJobArg decides what it means. */
export const jobRefField = (what: string): z.ZodString =>
  z.string().min(1).describe(`${what} The full id, a unique prefix of it or of its last part (e.g. 7gk2), or last for the newest job.`);

export async function resolveJobArg(app: App, ref: string, argument = 'job_id'): Promise<string> {
  return app.resolveJob(ref, { argument, hint: LIST_JOBS_HINT });
}
