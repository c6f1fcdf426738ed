/**
 * The shape of a job id (`20261129-111500-7gk2mq4xrz9d`), known down here because the cancel inbox
 * names its files by job id and sweeps only files of that shape. jobs/job-id.ts makes and checks ids.
 */
const JOB_ID = /^\d{8}-\d{6}-[0-9a-z]{12}$/;

/** Every job id is this long: files that keep many ids keep them end to end or one a line. */
export const JOB_ID_LENGTH = 28;

export function isJobId(value: string): boolean {
  return JOB_ID.test(value);
}
