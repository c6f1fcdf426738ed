/**
 * One poll of a job for a live view (`localagents run`'s status area, `log -f`):
 * its record, the transcript lines written since the last poll, and the last
 * model request's speed from requests.jsonl. Works the same for a job of this
 * process and one of another server (read from disk).
 */
import { createFileTail } from '../tracking/file-tail.js';
import type { JobManager } from '../queue/job-manager.js';
import type { JobRecord } from '../record/job-record.js';
import type { JobPaths } from '../record/job-store.js';
import { lastRequest, type RequestStats } from '../tracking/request-stats.js';

export interface JobSnapshot {
  readonly record: JobRecord;
  /** Transcript lines that are new since the previous poll. */
  readonly lines: readonly string[];
  /** The last model request that reported usage, for its speed and cache reuse. */
  readonly lastRequest: RequestStats | undefined;
}

export interface JobFollow {
  /** The record first, then the lines: lines written before the job ended are read after the record says it ended. */
  poll(): Promise<JobSnapshot>;
  /** The transcript's unterminated last line, if the writer left one (read after the job ended). */
  rest(): string;
}

export function followJob(jobs: Pick<JobManager, 'get'>, id: string, paths: Pick<JobPaths, 'transcript' | 'requests'>): JobFollow {
  const transcript = createFileTail(paths.transcript);
  const requests = createFileTail(paths.requests);
  let last: RequestStats | undefined;
  return {
    async poll() {
      const record = await jobs.get(id);
      const [lines, requestLines] = await Promise.all([transcript.read(), requests.read()]);
      last = lastRequest(last, requestLines);
      return { record, lines, lastRequest: last };
    },
    rest: () => transcript.rest(),
  };
}
