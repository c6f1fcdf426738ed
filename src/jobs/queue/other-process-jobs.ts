/**
 * Waiting for and cancelling a job that another localagents process owns:
 * only the owner stops a job cleanly, so a cancel is asked through the state
 * directory's cancel inbox; a job whose owner died is only ended.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { requestCancel, withdrawCancel } from '../../coord/cancel-requests.js';
import { endProcessGroup } from '../../coord/process-group.js';
import type { Logger } from '../../log.js';
import { FINISHED, type JobRecord } from '../record/job-record.js';

/** How often a wait or cancel on another process's job re-reads its record. */
const RECORD_POLL_MS = 200;
/** How long cancel_job waits for another process to answer its request (it reacts within CANCEL_POLL_MS, then stops the session). */
const CANCEL_ANSWER_MS = 15_000;

export interface OtherProcessDeps {
  readonly stateDir: string;
  readonly log: Logger;
  /** The record as it stands now; `id` is a checked job id. */
  readonly get: (id: string) => Promise<JobRecord>;
}

/** Re-reads the record until it has finished or `timeoutMs` has passed (a dead owner's reads `interrupted`). */
export async function watchRecord(deps: OtherProcessDeps, id: string, timeoutMs: number): Promise<JobRecord> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const record = await deps.get(id);
    const left = deadline - performance.now();
    if (FINISHED.has(record.status) || left <= 0) return record;
    // The read after the last sleep is the last one: a timer may end a millisecond early on a busy machine.
    const last = left <= RECORD_POLL_MS;
    await sleep(last ? left : RECORD_POLL_MS);
    if (last) return deps.get(id);
  }
}

export async function cancelElsewhere(deps: OtherProcessDeps, id: string): Promise<JobRecord> {
  let record = await deps.get(id);
  if (!FINISHED.has(record.status)) {
    await requestCancel(deps.stateDir, id);
    record = await watchRecord(deps, id, CANCEL_ANSWER_MS);
    await withdrawCancel(deps.stateDir, id);
  }
  if (record.status === 'interrupted' && record.claude_pid !== undefined) {
    // Its owner died; the Claude Code it started may still be running (and spending GPU time).
    if (endProcessGroup({ pid: record.claude_pid, start: record.claude_start })) {
      deps.log.warn('job %s: ended the Claude Code process group %d its dead owner left running', id, record.claude_pid);
    }
  }
  return record;
}
