/**
 * How a job is shown to the calling Claude: the record plus elapsed time, and
 * the job's facts (jobs/job-facts.ts) worded for a model, with the next call to
 * make. A person reads the same facts through cli/format-job.ts.
 */
import { formatCount, formatDuration } from '../amounts.js';
import { jobFacts, renderFacts, SHARED_WORDS, type FactRenderer } from '../jobs/view/job-facts.js';
import type { JobRecord } from '../jobs/record/job-record.js';
import { elapsedSeconds, FINISHED } from '../jobs/record/job-record.js';
import { UNAVAILABLE_FOR_MODEL } from '../registry/resolve.js';

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

/** Every fact, worded for the calling model. */
const FOR_MODEL: FactRenderer = {
  ...SHARED_WORDS,
  headline: (h) => [`job ${h.id}: ${h.status} after ${formatDuration(h.elapsedS)} — ${h.model ?? 'model pending'}${h.endpoint ? ` on ${h.endpoint}` : ''}`],
  work: (w) => [
    `turns ${w.turns}, tool calls ${w.toolCalls}, model requests ${w.requests}, tokens in ${formatCount(w.tokens.input)} (+${formatCount(w.tokens.cached)} cached), out ${formatCount(w.tokens.output)}`,
  ],
  error: (e) => [`error: ${e.code === 'model_unavailable' ? `${e.message} ${UNAVAILABLE_FOR_MODEL}` : e.message}`],
  worktree: (wt) =>
    wt.kept
      ? [
          `${wt.finished ? 'worktree kept' : 'worktree'}: ${wt.path} (branch ${wt.branch}, base ${wt.base_commit.slice(0, 12)})`,
          ...(wt.diffstat ? [wt.diffstat] : []),
          ...Object.entries(wt.commands).map(([what, command]) => `${what}: ${command}`),
        ]
      : [`worktree: nothing changed, so ${wt.path} and branch ${wt.branch} were removed`],
  logs: (dir) => [`logs: ${dir} (transcript.txt, events.jsonl, requests.jsonl)`],
  resumable: (r) => [`Continue it with run_agent(resume_job="${r.id}", task="…").`],
};

/** One readable paragraph: the job's facts for the calling Claude, ending with what to do next (job_status adds the usage summary's line). */
export function jobSummary(record: JobRecord, usageLine?: string): string {
  const lines = renderFacts(jobFacts(record, usageLine), FOR_MODEL);
  if (!FINISHED.has(record.status)) lines.push('Still running: call wait_job again (≤110 s per call), or job_log to see progress.');
  else if (record.status === 'succeeded' && record.verification?.passed) lines.push('Its check passed: read the diff for what the check does not cover.');
  else if (record.status === 'succeeded') lines.push("Review the work before relying on it: the local model's output is a draft.");
  return lines.join('\n');
}
