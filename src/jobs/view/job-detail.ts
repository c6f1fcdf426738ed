/**
 * Everything the dashboard's job page shows except the charts: the job's facts in
 * a person's words (person-words.ts, the same lines `localagents show` prints), the
 * record for the details around them, the tail of the transcript and the worktree
 * diffstat (the recorded one once the job has ended, a live `git diff --stat` while
 * it runs in its worktree).
 */
import { git } from '../git/git.js';
import type { FactLines } from './job-facts.js';
import type { JobManager } from '../queue/job-manager.js';
import { FINISHED, type JobRecord } from '../record/job-record.js';
import { personFactLines } from './person-words.js';

export const TAIL_LINES = 80;

export interface Diffstat {
  readonly text: string;
  /** Taken just now from a running job's worktree, rather than recorded when it ended. */
  readonly live: boolean;
}

export interface JobDetail {
  /** Every fact of the job, fact by fact, in a person's words (its usage summary's line among them). */
  readonly facts: readonly FactLines[];
  /** The job's usage summary as job_status and `localagents show --json` carry it (src/usage/job-summary.ts). */
  readonly usage: Readonly<Record<string, unknown>>;
  readonly record: JobRecord;
  readonly tail: string;
  readonly diffstat: Diffstat | undefined;
}

async function liveDiffstat(workDir: string): Promise<Diffstat | undefined> {
  const [diff, untracked] = await Promise.all([
    git(workDir, ['diff', '--stat', 'HEAD']),
    git(workDir, ['ls-files', '--others', '--exclude-standard', '--full-name']),
  ]);
  if (!diff.ok) return undefined; // the worktree is being set up or torn down; the next refresh shows it
  const added = untracked.ok ? untracked.stdout.split('\n').filter(Boolean) : [];
  const lines = [diff.stdout.trimEnd(), ...added.map((file) => ` ${file} (new, untracked)`)].filter(Boolean);
  return { text: lines.join('\n'), live: true };
}

export async function jobDetail(
  jobs: Pick<JobManager, 'get' | 'tail'>,
  id: string,
  usageOf: (record: JobRecord) => Promise<Readonly<Record<string, unknown>> & { readonly text: string }>,
): Promise<JobDetail> {
  const record = await jobs.get(id);
  const usage = await usageOf(record);
  const tail = await jobs.tail(id, TAIL_LINES);
  let diffstat: Diffstat | undefined;
  if (record.worktree) diffstat = { text: record.worktree.diffstat, live: false };
  else if (record.isolation === 'worktree' && record.work_dir !== undefined && !FINISHED.has(record.status)) {
    diffstat = await liveDiffstat(record.work_dir);
  }
  return { facts: personFactLines(record, usage.text), usage, record, tail, diffstat };
}
