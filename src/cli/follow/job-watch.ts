/**
 * One poll of a job for a live view: its record, the transcript lines written
 * since the last poll, and running request totals from requests.jsonl. Works
 * the same for a job of this process and one of another server (read from disk).
 */
import type { App } from '../../app.js';
import type { JobRecord } from '../../jobs/job-record.js';
import { createFileTail } from './file-tail.js';
import { addRequests, NO_REQUESTS, type RequestTotals } from './request-stats.js';

export interface JobSnapshot {
  readonly record: JobRecord;
  /** Transcript lines that are new since the previous poll. */
  readonly lines: readonly string[];
  readonly totals: RequestTotals;
}

export interface JobWatch {
  poll(): Promise<JobSnapshot>;
  /** The transcript's unterminated last line, if the writer left one (read after the job ended). */
  rest(): string;
}

export function createJobWatch(app: App, id: string): JobWatch {
  const paths = app.jobPaths(id);
  const transcript = createFileTail(paths.transcript);
  const requests = createFileTail(paths.requests);
  let totals = NO_REQUESTS;
  return {
    async poll() {
      const record = await app.jobs.get(id);
      const [lines, requestLines] = await Promise.all([transcript.read(), requests.read()]);
      totals = addRequests(totals, requestLines);
      return { record, lines, totals };
    },
    rest: () => transcript.rest(),
  };
}
