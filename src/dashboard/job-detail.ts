/**
 * Everything the job page shows except the charts: the record, the tail of
 * the transcript and the worktree diffstat (the recorded one once the job has
 * ended, a live `git diff --stat` while it runs in its worktree).
 */
import { git } from '../jobs/git.js';
import { FINISHED, type JobRecord } from '../jobs/job-record.js';
import type { JobManager } from '../jobs/job-manager.js';
import { verificationLine } from '../jobs/verify/record.js';
import { jobRow, type JobRow } from './job-row.js';

export const TAIL_LINES = 80;

export interface Diffstat {
  readonly text: string;
  /** Taken just now from a running job's worktree, rather than recorded when it ended. */
  readonly live: boolean;
}

export interface JobDetail {
  readonly row: JobRow;
  readonly record: JobRecord;
  readonly tail: string;
  readonly diffstat: Diffstat | undefined;
  /** The verify command's line, as job_status and `localagents show` lead with it. */
  readonly verification: string | undefined;
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

export async function jobDetail(jobs: Pick<JobManager, 'get' | 'tail'>, id: string): Promise<JobDetail> {
  const record = await jobs.get(id);
  const tail = await jobs.tail(id, TAIL_LINES);
  let diffstat: Diffstat | undefined;
  if (record.worktree) diffstat = { text: record.worktree.diffstat, live: false };
  else if (record.isolation === 'worktree' && record.work_dir !== undefined && !FINISHED.has(record.status)) {
    diffstat = await liveDiffstat(record.work_dir);
  }
  return { row: jobRow(record), record, tail, diffstat, verification: record.verification ? verificationLine(record.verification) : undefined };
}
