/**
 * Job ids: sortable by creation time, unguessable, safe as a folder and a
 * git branch name. `20261129-111500-7gk2mq4xrz9d`: UTC time, then 60 random bits.
 */
import { isJobId } from '../../coord/job-id-shape.js';
import { BadArgumentError } from '../../errors.js';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

/** The start of a job id: its UTC creation time to the second (`20261202-093000`), so ids sort by it. */
export const jobIdStamp = (at: Date): string => at.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);

export function newJobId(now: Date = new Date()): string {
  const stamp = jobIdStamp(now);
  // node:crypto loaded when an id is made: loading it costs a status line, which makes none, a tenth of its start.
  const bytes = process.getBuiltinModule('node:crypto').randomBytes(12);
  let suffix = '';
  for (const byte of bytes.subarray(0, 12)) suffix += ALPHABET[byte & 31];
  return `${stamp}-${suffix}`;
}

export { isJobId };

/** Rejects anything that is not a job id before it reaches a path: no `/`, no `..`. */
export function checkJobId(value: string, argument = 'job_id'): string {
  if (!isJobId(value)) {
    throw new BadArgumentError(argument, `${argument} "${value.slice(0, 80)}" is not a job id; expected the form 20261129-111500-7gk2mq4xrz9d`);
  }
  return value;
}
