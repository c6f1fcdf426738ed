/**
 * Finds, with git, what became of a finished job's work when nothing recorded it
 * (`localagents merge` and resume_job record theirs as they happen). Read-only,
 * a few git calls per job, and only for jobs whose fate is still unknown:
 *  - a worktree job is merged when its branch holds commits and its tip is in the
 *    HEAD of the repository it worked on (`git merge-base --is-ancestor`), or when
 *    that HEAD's reflog holds a merge of its branch; discarded when its worktree is
 *    gone and its branch is gone or holds no commit, with no such merge;
 *  - an in-place job's changed files (left-tree.ts) are compared at HEAD once HEAD is
 *    a later commit than the one it ended on: all as the job left them is kept, all
 *    as before is reverted, anything else changed further; while one of them is still
 *    in the working tree as the job left it, uncommitted, nothing is decided.
 * Anything else (no commit yet, HEAD on another line, a repository gone) stays unknown.
 */
import { FINISHED, type JobRecord } from '../record/job-record.js';
import { jobIdStamp } from '../record/job-id.js';
import { forEachLimited, type JobStore } from '../record/job-store.js';
import { recordOutcome, type Fate } from '../record/outcome.js';
import { git } from './git.js';
import { blobsAt, workingBlobs, type LeftTree } from './left-tree.js';
import { worktreeOwnership } from './work-retention.js';

type Found = Pick<Fate, 'kind' | 'detail'>;

/** How far back HEAD's reflog is searched for a merge of the job's branch. */
const MAX_REFLOG = 2000;

async function worktreeFate(record: JobRecord): Promise<Found | undefined> {
  const wt = record.worktree;
  if (wt === undefined || !wt.kept) return undefined;
  const repo = record.cwd;
  if (!(await git(repo, ['rev-parse', '--git-dir'])).ok) return undefined;
  const tip = await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${wt.branch}^{commit}`]);
  const tipSha = tip.ok ? tip.stdout.trim() : undefined;
  const head = (await git(repo, ['symbolic-ref', '--quiet', '--short', 'HEAD'])).stdout.trim() || 'HEAD';
  if (tipSha !== undefined && tipSha !== wt.base_commit) {
    const inHead = await git(repo, ['merge-base', '--is-ancestor', tipSha, 'HEAD']);
    return inHead.ok ? { kind: 'merged', detail: `${wt.branch} (${tipSha.slice(0, 12)}) is in ${head} of ${repo}` } : undefined;
  }
  const reflog = await git(repo, ['log', '-g', `--max-count=${MAX_REFLOG}`, '--format=%gs', 'HEAD']);
  if (reflog.ok && reflog.stdout.split('\n').some((s) => s.startsWith(`merge ${wt.branch}:`))) {
    return { kind: 'merged', detail: `the reflog of ${head} in ${repo} holds a merge of ${wt.branch}` };
  }
  const ownership = await worktreeOwnership({ repo, path: wt.path, branch: wt.branch, baseCommit: wt.base_commit });
  if (ownership.kind === 'ours') return undefined;
  const branch = tipSha === undefined ? `branch ${wt.branch} was deleted` : `branch ${wt.branch} holds no commit of it`;
  return { kind: 'discarded', detail: `its worktree ${wt.path} is gone and ${branch}, with no merge of it in ${head}'s reflog` };
}

async function inPlaceFate(left: LeftTree): Promise<Found | undefined> {
  if (left.files.length === 0) return undefined;
  const head = await git(left.repo, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  const sha = head.stdout.trim();
  // Decided only once a commit followed the one it ended on, on the same line of history.
  if (!head.ok || sha === left.head || !(await git(left.repo, ['merge-base', '--is-ancestor', left.head, sha])).ok) return undefined;
  const paths = left.files.map((f) => f.path);
  const [committed, working] = [await blobsAt(left.repo, sha, paths), await workingBlobs(left.repo, paths)];
  if (committed === undefined || working === undefined) return undefined;
  const at = (f: LeftTree['files'][number]): string => committed.get(f.path) ?? '';
  // A file still as the job left it but not committed yet may be committed later: nothing is decided then.
  if (left.files.some((f) => at(f) !== f.after && (working.get(f.path) ?? '') === f.after)) return undefined;
  const asLeft = left.files.filter((f) => at(f) === f.after).length;
  const asBefore = left.files.filter((f) => at(f) === f.before).length;
  const n = left.files.length;
  const unchecked = left.more > 0 ? ` (${left.more} more files not compared)` : '';
  const where = `commit ${sha.slice(0, 12)} (after ${left.head.slice(0, 12)}, which it ended on)`;
  if (asLeft === n) return { kind: 'kept_in_tree', detail: `its ${n} changed file(s) are as it left them in ${where}${unchecked}` };
  if (asBefore === n) return { kind: 'reverted', detail: `its ${n} changed file(s) are as before it in ${where}, and not in the working tree${unchecked}` };
  return { kind: 'changed_further', detail: `${asLeft} of its ${n} changed file(s) are as it left them in ${where}, ${asBefore} as before it${unchecked}` };
}

/** What git says became of the job's work, when it can tell. */
export function findFate(record: JobRecord): Promise<Found | undefined> {
  if (record.left_tree !== undefined) return inPlaceFate(record.left_tree);
  return worktreeFate(record);
}

/** What list_models looks at: the newest jobs of the last 30 days, at most 200; and how long `usage` checks a job. */
export const RECENT_DAYS = 30;
export const RECENT_MAX = 200;

/** Jobs a check may decide: finished, no fate on file, with a worktree or an in-place snapshot. */
export const awaitsFate = (record: JobRecord): boolean =>
  FINISHED.has(record.status) && record.outcome?.fate === undefined && (record.worktree?.kept === true || (record.left_tree?.files.length ?? 0) > 0);

/** Awaits a fate and is of the last RECENT_DAYS days: the usage report checks it each time rather than keep its row. */
export const awaitsRecentFate = (record: JobRecord, now: Date): boolean => awaitsFate(record) && Date.parse(record.created_at) >= now.getTime() - RECENT_DAYS * 86_400_000;

/**
 * Checks each of `records` that awaits a fate and records what git found, `by` naming who looked.
 * Returns the records, updated where a fate was found (a record that could not be saved stays as it was).
 */
export async function refreshOutcomes(store: Pick<JobStore, 'root' | 'read' | 'save'>, records: readonly JobRecord[], by: string): Promise<JobRecord[]> {
  const out: JobRecord[] = [];
  for (const record of records) {
    const found = awaitsFate(record) ? await findFate(record) : undefined;
    if (found === undefined) {
      out.push(record);
      continue;
    }
    const fate = { ...found, at: new Date().toISOString(), by: `git, checked by ${by}` };
    out.push(await recordOutcome(store, record.id, { fate }).catch(() => ({ ...record, outcome: { ...record.outcome, fate } })));
  }
  return out;
}


export interface RecentJobs {
  readonly records: readonly JobRecord[];
  /** More jobs were created in those days than were read. */
  readonly capped: boolean;
}

/**
 * The newest records of the last RECENT_DAYS days (at most RECENT_MAX, read from disk: another process may have
 * recorded an outcome since), with the fates git can tell now recorded. Damaged records are left out.
 */
export async function recentJobs(store: Pick<JobStore, 'root' | 'read' | 'save' | 'ids'>, by: string, now: Date = new Date()): Promise<RecentJobs> {
  const since = new Date(now.getTime() - RECENT_DAYS * 86_400_000);
  const ids = (await store.ids()).between(jobIdStamp(since), undefined).toArray();
  const newest = ids.slice(-RECENT_MAX);
  const read: JobRecord[] = [];
  await forEachLimited(newest, 16, async (id) => {
    const record = await store.read(id).catch(() => undefined);
    if (record !== undefined && Date.parse(record.created_at) >= since.getTime()) read.push(record);
  });
  read.sort((a, b) => a.id.localeCompare(b.id));
  return { records: await refreshOutcomes(store, read, by), capped: ids.length > newest.length };
}
