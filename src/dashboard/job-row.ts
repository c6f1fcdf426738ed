/**
 * One row of the jobs table: what a user sorts and scans by. Built from the
 * record alone, so the list never opens a job's logs.
 */
import type { InFlightRequest, JobRecord } from '../jobs/job-record.js';
import { outageWords } from '../shim/outage-hold.js';

export interface JobRow {
  readonly id: string;
  readonly status: string;
  readonly task: string;
  readonly model: string | undefined;
  readonly endpoint: string | undefined;
  readonly created_at: string;
  readonly started_at: string | undefined;
  readonly finished_at: string | undefined;
  readonly turns: number;
  readonly tool_calls: number;
  readonly files_touched: number;
  readonly requests: number;
  /** Output tokens per second of the job's open requests now (running jobs only). */
  readonly tokens_per_s: number | undefined;
  /** Prompt tokens the server has read so far for the job's open requests, while it reads them: the job page follows it. */
  readonly prompt_read_tokens: number | undefined;
  readonly queue_position: number | undefined;
  readonly last_activity: string | undefined;
  /** While the job waits out its server's outage: "gpu is loading its model, 1 min 40 s so far; waiting up to 10 min". */
  readonly waiting_for_server: string | undefined;
  readonly error: string | undefined;
}

const TASK_PREVIEW = 140;

/** The sum of one number over the open requests that have it. */
function sumOpen(record: JobRecord, value: (r: InFlightRequest) => number | undefined): number | undefined {
  const values = (record.in_flight ?? []).map(value).filter((v): v is number => v !== undefined);
  return values.length === 0 ? undefined : Math.round(values.reduce((a, b) => a + b, 0));
}

export function jobRow(record: JobRecord): JobRow {
  return {
    id: record.id,
    status: record.status,
    task: record.task_preview.slice(0, TASK_PREVIEW),
    model: record.model.served ?? record.model.requested,
    endpoint: record.model.endpoint,
    created_at: record.created_at,
    started_at: record.started_at,
    finished_at: record.finished_at,
    turns: record.num_turns,
    tool_calls: record.tool_calls,
    files_touched: record.files_touched.length,
    requests: record.requests,
    tokens_per_s: sumOpen(record, (r) => r.tokens_per_s),
    prompt_read_tokens: sumOpen(record, (r) => r.prompt_read_tokens),
    queue_position: record.queue?.position,
    last_activity: record.last_activity?.what,
    waiting_for_server: record.outage_wait === undefined ? undefined : outageWords(record.outage_wait),
    error: record.error?.slice(0, 300),
  };
}
