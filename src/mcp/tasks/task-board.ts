/**
 * Tool calls as MCP tasks (extension io.modelcontextprotocol/tasks): a run_agent or wait_job call answers at
 * once with a task whose id maps to its job (task-ids.ts), and the task lives exactly as long as the job: its
 * state is the job record's, so after a restart a cut-off job's task reads as finished (interrupted, with how
 * to resume) and never as unknown. The result is what wait_job answers for the finished job.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { JobRecord } from '../../jobs/record/job-record.js';
import { FINISHED } from '../../jobs/record/job-record.js';
import type { InnerServer, Progress } from './inner-server.js';
import type { Channel, TaskIds } from './task-ids.js';

/** How often the caller's client should ask (Claude Code polls at this interval; a poll costs it no model turn). */
export const POLL_INTERVAL_MS = 2000;
/** Finished results kept in memory for the polls that fetch them; an evicted one is asked of wait_job again. */
const KEPT_RESULTS = 64;
export const CANCELLED_BY = "the caller's TaskStop (MCP tasks/cancel)";

export interface TaskJobs {
  get(id: string): Promise<JobRecord>;
  cancel(id: string, by: string): Promise<JobRecord>;
  resolveJob(ref: string): Promise<string>;
}

export type Started = { readonly task: Record<string, unknown> } | { readonly answer: JSONRPCMessage };

export interface TaskBoard {
  /** A task for this tools/call, or the answer to give instead (an error, a job already finished, another tool). */
  start(params: Record<string, unknown>, channel: Channel): Promise<Started>;
  /** The task's state for tasks/get; undefined when this channel has no such task. */
  get(taskId: unknown, channel: Channel): Promise<Record<string, unknown> | undefined>;
  /** False when this channel has no such task. */
  cancel(taskId: unknown, channel: Channel): Promise<boolean>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const structured = (m: JSONRPCMessage): Record<string, unknown> | undefined => {
  const r = 'result' in m && isObject(m.result) ? m.result : undefined;
  return r && r.isError !== true && isObject(r.structuredContent) ? r.structuredContent : undefined;
};

export function createTaskBoard(inner: InnerServer, jobs: TaskJobs, ids: TaskIds): TaskBoard {
  const results = new Map<string, JSONRPCMessage>();
  const following = new Map<string, Promise<void>>();
  const lastProgress = new Map<string, string>();

  const keep = (jobId: string, answer: JSONRPCMessage): void => {
    results.set(jobId, answer);
    if (results.size > KEPT_RESULTS) results.delete(results.keys().next().value as string);
  };
  const waitJob = (jobId: string, onProgress?: (p: Progress) => void): Promise<JSONRPCMessage> =>
    inner.request('tools/call', { name: 'wait_job', arguments: { job_id: jobId } }, onProgress);

  /** Waits in the background until the job has ended, keeping wait_job's final answer. */
  const follow = (jobId: string): void => {
    if (following.has(jobId)) return;
    const run = async (): Promise<void> => {
      for (;;) {
        const answer = await waitJob(jobId, (p) => p.message !== undefined && lastProgress.set(jobId, p.message));
        const record = await jobs.get(jobId).catch(() => undefined);
        if (record !== undefined && FINISHED.has(record.status)) return keep(jobId, answer);
        // No record, or wait_job failed while the job runs: stop here; the next tasks/get follows it again.
        if (record === undefined || structured(answer) === undefined) return;
      }
    };
    following.set(jobId, run().finally(() => {
      following.delete(jobId);
      lastProgress.delete(jobId);
    }));
  };

  const taskFields = (taskId: string, record: JobRecord): Record<string, unknown> => ({
    taskId,
    createdAt: record.created_at,
    lastUpdatedAt: new Date().toISOString(),
    ttlMs: null,
    pollIntervalMs: POLL_INTERVAL_MS,
  });

  const jobFor = async (params: Record<string, unknown>): Promise<string | JSONRPCMessage> => {
    const args = isObject(params.arguments) ? params.arguments : {};
    if (params.name === 'wait_job' && typeof args.job_id === 'string') {
      const jobId = await jobs.resolveJob(args.job_id).catch(() => undefined);
      const record = jobId === undefined ? undefined : await jobs.get(jobId).catch(() => undefined);
      // A bad reference or a finished job: the plain call answers at once, as for any client.
      if (jobId === undefined || record === undefined || FINISHED.has(record.status)) return inner.request('tools/call', params);
      return jobId;
    }
    // Several jobs (a list of briefs or ids) are one plain call that answers when all have finished.
    if (params.name === 'wait_job' || Array.isArray(args.task)) return inner.request('tools/call', params);
    // run_agent starts the job without waiting; the task does the waiting.
    const answer = await inner.request('tools/call', { ...params, arguments: { ...args, wait_s: 0 } });
    const id = structured(answer)?.id;
    return typeof id === 'string' ? id : answer;
  };

  return {
    async start(params, channel) {
      if (params.name !== 'run_agent' && params.name !== 'wait_job') return { answer: await inner.request('tools/call', params) };
      const job = await jobFor(params);
      if (typeof job !== 'string') return { answer: job };
      const record = await jobs.get(job);
      follow(job);
      return { task: { ...taskFields(await ids.mint(job, channel), record), status: 'working', statusMessage: `job ${job} ${record.status}` } };
    },
    async get(taskId, channel) {
      const jobId = await ids.jobOf(taskId, channel);
      const record = jobId === undefined ? undefined : await jobs.get(jobId).catch(() => undefined);
      if (jobId === undefined || record === undefined) return undefined;
      const fields = taskFields(taskId as string, record);
      if (!FINISHED.has(record.status)) {
        follow(jobId); // after a restart of a process that did not run it: its record is watched
        return { ...fields, status: 'working', statusMessage: lastProgress.get(jobId) ?? `job ${jobId} ${record.status}` };
      }
      if (record.status === 'cancelled') return { ...fields, status: 'cancelled', statusMessage: record.error ?? 'cancelled' };
      const answer = results.get(jobId) ?? (await waitJob(jobId));
      keep(jobId, answer);
      if ('error' in answer) return { ...fields, status: 'failed', statusMessage: answer.error.message, error: answer.error };
      const resume = record.status === 'interrupted' ? `; continue it with run_agent(resume_job="${jobId}")` : '';
      return { ...fields, status: 'completed', statusMessage: `job ${jobId} ${record.status}${record.error ? `: ${record.error}` : ''}${resume}`, result: (answer as { result: unknown }).result };
    },
    async cancel(taskId, channel) {
      const jobId = await ids.jobOf(taskId, channel);
      if (jobId === undefined || (await jobs.get(jobId).catch(() => undefined)) === undefined) return false;
      await jobs.cancel(jobId, CANCELLED_BY);
      return true;
    },
  };
}
