/**
 * A finished worktree job as run_agent leaves one: the real prepareWorktree on
 * a real repository, `work` done in the worktree, the real finish step, and the
 * record saved in the store, finished half a day ago.
 */
import { join } from 'node:path';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import type { JobStore } from '../../src/jobs/record/job-store.js';
import { finishWorktree, prepareWorktree, type PreparedWorktree } from '../../src/jobs/git/worktree.js';
import { makeRecord, seedJob } from '../dashboard/fixtures.js';

const DAY = 86_400_000;

export interface FinishedWorktreeJob {
  readonly record: JobRecord;
  readonly wt: PreparedWorktree;
}

export async function finishedWorktreeJob(store: JobStore, repo: string, work: (wt: PreparedWorktree) => void): Promise<FinishedWorktreeJob> {
  const draft = makeRecord({ created: new Date(Date.now() - DAY), cwd: repo, work_dir: repo, isolation: 'worktree' });
  const wt = await prepareWorktree(repo, join(store.root, '..', 'worktrees'), draft.id);
  work(wt);
  const info = await finishWorktree(wt);
  const record = await seedJob(store, { ...draft, finished_at: new Date(Date.now() - DAY / 2).toISOString(), worktree: info });
  return { record, wt };
}
