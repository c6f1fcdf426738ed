/**
 * What a person or a calling model may give for a job: the full id, `last`
 * (the newest job), or any unique prefix of the id or of its random part
 * (`7gk2`). One rule for the CLI's JOB and every MCP tool's job id; the caller
 * adds the hint for its audience.
 */
import { editDistance } from '../../config/closest-match.js';
import { BadArgumentError, LocalAgentsError } from '../../errors.js';
import type { SortedJobIds } from './sorted-job-ids.js';

const FULL_ID = /^\d{8}-\d{6}-[0-9a-z]{12}$/;
const PREFIX = /^[0-9a-z-]{1,27}$/;
/** Where the random part starts: `20261129-111500-`. */
const RANDOM_AT = 16;

export interface JobRefOptions {
  /** The argument's name, put in front of "is not a job id" (`job_id`, `resume_job`); the CLI's JOB leaves it out. */
  readonly argument?: string;
  /** Where to find the ids, worded for the audience. */
  readonly hint?: string;
}

/** Ids `ref` is a typo or two away from (as a whole or as a prefix, of the id or of its random part), newest first. */
function nearIds(ref: string, ids: readonly string[]): string[] {
  const allowed = ref.length >= 8 ? 2 : ref.length >= 4 ? 1 : 0;
  if (allowed === 0) return [];
  const near = (s: string): boolean => editDistance(ref, s.slice(0, ref.length)) <= allowed;
  return ids.filter((id) => near(id) || near(id.slice(RANDOM_AT))).reverse().slice(0, 3);
}

function didYouMean(ref: string, ids: readonly string[]): string {
  const near = nearIds(ref, ids);
  return near.length === 0 ? '' : `; did you mean ${near.join(' or ')}?`;
}

/** The job id `ref` means among `ids` (oldest first); an error naming the candidates when it is not one job. */
export function resolveJobRef(ref: string, ids: SortedJobIds, options: JobRefOptions = {}): string {
  const { argument, hint } = options;
  if (FULL_ID.test(ref)) {
    // Not on record but a typo away from one that is: say which. Otherwise the lookup decides (a job not saved yet).
    const near = ids.has(ref) ? '' : didYouMean(ref, ids.toArray());
    if (near !== '') throw new LocalAgentsError('unknown_job', `no job ${ref} on record${near}`, { hint, details: { job_id: ref } });
    return ref;
  }
  if (ref === 'last') {
    const newest = ids.at(-1);
    if (newest === undefined) throw new LocalAgentsError('unknown_job', 'there are no jobs on record yet', { hint, details: { job_id: ref } });
    return newest;
  }
  if (!PREFIX.test(ref)) {
    throw new BadArgumentError(
      argument ?? 'job_id',
      `${argument === undefined ? '' : `${argument} `}"${ref.slice(0, 80)}" is not a job id; expected the form 20261129-111500-7gk2mq4xrz9d, a prefix of it or of its last part, or last`,
      { hint },
    );
  }
  const all = ids.toArray();
  const matches = all.filter((id) => id.startsWith(ref) || id.slice(RANDOM_AT).startsWith(ref));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new LocalAgentsError('unknown_job', `no job id starts with "${ref}"${didYouMean(ref, all)}`, { hint, details: { job_id: ref } });
  const shown = matches.slice(-5).join(', ');
  throw new BadArgumentError(argument ?? 'job_id', `"${ref}" matches ${matches.length} jobs (${shown}${matches.length > 5 ? ', …' : ''}); type more of the id`, {
    hint,
    details: { matches },
  });
}
