/**
 * The record of a job the moment it leaves the queue for its endpoint: where
 * it runs and why, in which directory, with which warnings. Pure.
 */
import type { JobRecord } from '../record/job-record.js';
import type { Placement } from '../placement/placement.js';
import { runningWorktreeInfo, type PreparedWorktree } from '../git/worktree.js';

export function runningRecord(queued: JobRecord, placement: Placement, worktree: PreparedWorktree | undefined, workDir: string, startedAt: string): JobRecord {
  const { candidate } = placement;
  return {
    ...queued,
    status: 'running',
    started_at: startedAt,
    queue: undefined,
    work_dir: workDir,
    worktree: worktree && runningWorktreeInfo(worktree),
    warnings: [...queued.warnings, ...candidate.model.warnings, ...(worktree?.warnings ?? [])],
    model: {
      ...queued.model,
      served: candidate.model.id,
      served_file: candidate.model.file,
      served_fingerprint: candidate.model.fingerprint,
      endpoint: candidate.endpoint.name,
      context: candidate.context,
      context_source: candidate.contextSource,
      endpoint_reason: placement.reason,
    },
  };
}
