/**
 * What a person may type for a job: the full id, `last` (the newest job), or
 * any unique prefix of the id or of its random part (`7gk2`).
 */
import { BadArgumentError, LocalAgentsError } from '../errors.js';

const FULL_ID = /^\d{8}-\d{6}-[0-9a-z]{12}$/;
const PREFIX = /^[0-9a-z-]{1,27}$/;

/** The job id `ref` means among `ids` (oldest first); an error naming the candidates when it is not one job. */
export function resolveJobRef(ref: string, ids: readonly string[]): string {
  if (FULL_ID.test(ref)) return ref;
  if (ref === 'last') {
    const newest = ids.at(-1);
    if (newest === undefined) throw new LocalAgentsError('unknown_job', 'there are no jobs on record yet', { details: { job_id: ref } });
    return newest;
  }
  if (!PREFIX.test(ref)) {
    throw new BadArgumentError('job_id', `"${ref.slice(0, 80)}" is not a job id; expected the form 20261129-111500-7gk2mq4xrz9d, a prefix of it or of its last part, or last`);
  }
  const matches = ids.filter((id) => id.startsWith(ref) || id.slice(16).startsWith(ref));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new LocalAgentsError('unknown_job', `no job id starts with "${ref}"`, { details: { job_id: ref } });
  const shown = matches.slice(-5).join(', ');
  throw new BadArgumentError('job_id', `"${ref}" matches ${matches.length} jobs (${shown}${matches.length > 5 ? ', …' : ''}); type more of the id`, { details: { matches } });
}
