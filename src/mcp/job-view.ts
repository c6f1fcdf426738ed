/**
 * How a job record is shown to the calling Claude: the record plus elapsed
 * time and a one-paragraph summary of what to do next.
 */
import type { JobRecord } from '../jobs/job-record.js';
import { elapsedSeconds, FINISHED } from '../jobs/job-record.js';
import { inFlightLine } from '../jobs/in-flight-line.js';
import { describeSandboxRecord } from '../jobs/sandbox/record.js';
import { verificationLine } from '../jobs/verify/record.js';
import { UNAVAILABLE_FOR_MODEL } from '../registry/resolve.js';
import { explanationText } from '../shim/translate/error-catalogue.js';

/** The record's error with the next step for the calling Claude: the call that resumes it, or what to tell the user. */
function errorForModel(record: JobRecord): string | undefined {
  if (record.error === undefined) return undefined;
  if (record.status === 'interrupted' && record.session_id !== undefined) return `${record.error}; continue it with run_agent(resume_job="${record.id}")`;
  if (record.error_code === 'model_unavailable') return `${record.error} ${UNAVAILABLE_FOR_MODEL}`;
  return record.error;
}

/** The record as the calling Claude sees it. */
export function jobView(record: JobRecord): Record<string, unknown> {
  const error = errorForModel(record);
  return { ...record, ...(error === undefined ? {} : { error }), elapsed_s: elapsedSeconds(record) };
}

/** One readable paragraph: the job log's human reader and the calling Claude both start here. */
export function jobSummary(record: JobRecord): string {
  const lines = [`job ${record.id}: ${record.status} after ${elapsedSeconds(record)} s — ${record.model.served ?? record.model.requested ?? 'model pending'}${record.model.endpoint ? ` on ${record.model.endpoint}` : ''}`];
  if (record.verification) lines.push(verificationLine(record.verification));
  if (record.model.endpoint_reason) lines.push(`endpoint: ${record.model.endpoint_reason}`);
  if (record.queue) lines.push(`queued: position ${record.queue.position}, waiting for ${record.queue.waiting_for}`);
  lines.push(`turns ${record.num_turns}, tool calls ${record.tool_calls}, backend requests ${record.requests}`);
  if (record.last_activity && !FINISHED.has(record.status)) lines.push(`last activity: ${record.last_activity.what}`);
  for (const request of record.in_flight ?? []) lines.push(inFlightLine(request));
  const lastError = record.backend_errors?.[record.backend_errors.length - 1];
  if (lastError !== undefined) {
    const count = record.backend_errors?.length ?? 0;
    lines.push(`last backend error (${count === 1 ? 'the only one' : `${count} recorded`}), request ${lastError.request ?? '?'} at ${lastError.at.slice(11, 19)}, HTTP ${lastError.status}: ${lastError.message}`);
    if (record.status === 'running') lines.push(`  ${explanationText(lastError.explanation)}`);
  }
  if (record.files_touched.length > 0) lines.push(`files touched: ${record.files_touched.join(', ')}`);
  if (record.sandbox) lines.push(`sandbox: ${describeSandboxRecord(record.sandbox)}`);
  if (record.worktree?.kept) {
    lines.push(`${FINISHED.has(record.status) ? 'worktree kept' : 'worktree'}: ${record.worktree.path} (branch ${record.worktree.branch}, base ${record.worktree.base_commit.slice(0, 12)})`);
    if (record.worktree.diffstat) lines.push(record.worktree.diffstat);
    for (const [what, command] of Object.entries(record.worktree.commands)) lines.push(`${what}: ${command}`);
  }
  for (const warning of record.warnings) lines.push(`warning: ${warning}`);
  if (record.log_dir) lines.push(`logs: ${record.log_dir} (transcript.txt, events.jsonl, requests.jsonl)`);
  if (record.result) lines.push(`result: ${record.result}`);
  const error = errorForModel(record);
  if (error) lines.push(`error: ${error}`);
  if (!FINISHED.has(record.status)) lines.push('Still running: call wait_job again (≤110 s per call), or job_log to see progress.');
  else if (record.status === 'succeeded' && record.verification?.passed) lines.push('Its check passed: read the diff for what the check does not cover.');
  else if (record.status === 'succeeded') lines.push("Review the work before relying on it: the local model's output is a draft.");
  else if (record.status === 'interrupted' && record.session_id) lines.push(`Continue it with run_agent(resume_job="${record.id}", task="…").`);
  return lines.join('\n');
}
