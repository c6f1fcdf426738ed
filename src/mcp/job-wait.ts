/**
 * Waiting on jobs inside one tool call, so the result comes to the caller: the call returns when every job
 * has finished (or the caller's own limit passes), and meanwhile sends MCP progress notifications saying what
 * each job is doing. Those notifications reset the client's idle timeout (Claude Code's is 30 minutes) and
 * show a person that the job moves; they never reach the calling model, so they cost it nothing.
 */
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../app.js';
import { formatCount, formatDuration } from '../amounts.js';
import { elapsedSeconds, FINISHED, type JobRecord } from '../jobs/record/job-record.js';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** How often the jobs are looked at while waiting. */
const LOOK_EVERY_S = 2;
/** A notification at least this often, even when nothing changed: no idle timeout of any client fires. */
const HEARTBEAT_MS = 20_000;

/** One line per job: what it is doing now. */
export function progressLine(record: JobRecord): string {
  const usage = record.usage;
  const parts = [
    `${record.id}: ${record.status} ${formatDuration(elapsedSeconds(record))}`,
    `turn ${record.num_turns}`,
    `${record.tool_calls} tool calls`,
    `tokens in ${formatCount(usage.input_tokens + usage.cache_read_input_tokens)}, out ${formatCount(usage.output_tokens)}`,
    ...(record.last_activity ? [`last: ${record.last_activity.what}`] : []),
  ];
  return parts.join(', ');
}

/** What changed since the last notification, elapsed time aside. */
const gist = (records: readonly JobRecord[]): string =>
  records.map((r) => `${r.status}|${r.num_turns}|${r.tool_calls}|${r.last_activity?.at ?? ''}`).join(';');

/**
 * The jobs' records once all have finished, or as they are when `timeoutS` passes (undefined: no limit but
 * the jobs' own) or the caller cancels its request. The jobs go on running in every case.
 */
export async function waitForJobs(app: App, ids: readonly string[], timeoutS: number | undefined, extra: ToolExtra): Promise<JobRecord[]> {
  const deadline = timeoutS === undefined ? Number.POSITIVE_INFINITY : performance.now() + timeoutS * 1000;
  const token = extra._meta?.progressToken;
  let sent = 0;
  let lastGist = '';
  let lastAt = performance.now();
  for (;;) {
    const stepS = Math.max(0, Math.min(LOOK_EVERY_S * 1000, deadline - performance.now())) / 1000;
    const records = await Promise.all(ids.map((id) => app.jobs.wait(id, stepS)));
    if (records.every((r) => FINISHED.has(r.status)) || performance.now() >= deadline || extra.signal.aborted) return records;
    const now = gist(records);
    if (token !== undefined && (now !== lastGist || performance.now() - lastAt >= HEARTBEAT_MS)) {
      sent += 1;
      lastGist = now;
      lastAt = performance.now();
      const message = records.map(progressLine).join('\n');
      // A client gone meanwhile: the wait goes on, the next look notices the abort.
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: sent, message } }).catch(() => undefined);
    }
  }
}
