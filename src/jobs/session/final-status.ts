/**
 * How a job ended, in one pure step: our own stop reason first (cancel,
 * shutdown, timeout), then what the session said, then how it exited. After
 * backend errors, the cause in words comes first in `error`; what Claude Code
 * made of it follows.
 */
import { formatDuration } from '../../amounts.js';
import { errorMessage } from '../../errors.js';
import { explanationText } from '../../shim/translate/error-catalogue.js';
import type { BackendErrorEvent, JobRecord, JobStatus } from '../record/job-record.js';

/** Why we stopped a session ourselves: cancel_job, timeout_s, or the server shutting down. */
export type StopReason = 'cancelled' | 'timeout' | 'shutdown';

export interface RunEnd {
  readonly stopReason: StopReason | undefined;
  /** Who asked for the cancel, when known. */
  readonly cancelledBy?: string | undefined;
  readonly timeoutS: number;
  /** The session's own error result (is_error), if it ended in one. */
  readonly resultError: string | undefined;
  /** The session yielded its final result. */
  readonly finished: boolean;
  /** localagents could not start the session (a settings file it cannot read, say). */
  readonly setupError?: unknown;
  /** The Claude Code run itself threw (it exited non-zero, or was not found). */
  readonly sessionError?: unknown;
  /** Claude Code says why it refused to start only on stderr ("exited with code 1" alone helps nobody). */
  readonly lastStderr?: string | undefined;
  readonly lastBackendError: BackendErrorEvent | undefined;
  /** The sandbox the user asked for cannot run here: the session was never started. */
  readonly sandboxProblem?: string;
  /** The job's verify command never passed (src/jobs/verify/): why, in words. */
  readonly verifyFailure?: string | undefined;
  /** The server outage the job was waiting out when it was stopped: the endpoint, what it last saw, for how long. */
  readonly outageAtEnd?: OutageAtEnd | undefined;
}

export interface OutageAtEnd {
  readonly endpoint: string;
  /** In words that follow the endpoint's name: "is down (…)", "is loading its model". */
  readonly saw: string;
  readonly forS: number;
}

export interface FinalStatus {
  readonly status: JobStatus;
  readonly error: string | undefined;
}

/** ` of <who>` when the canceller is known. */
export const byWhom = (who: string | undefined): string => (who === undefined ? '' : ` of ${who}`);

/** A timeout spent waiting for a server that had gone away says so, and what would help: the time limit was not the cause. */
function timeoutWords(end: RunEnd): string {
  const stopped = `stopped after timeout_s=${end.timeoutS} s`;
  const o = end.outageAtEnd;
  if (o === undefined) return stopped;
  return (
    `${stopped}; for its last ${formatDuration(o.forS)} it was waiting for its model server ${o.endpoint}, which ${o.saw} and had not come back. ` +
    `Start ${o.endpoint} again with the job's model (localagents doctor shows what it answers), then continue the job with run_agent resume_job; ` +
    'with defaults.failover: same_model a job moves to another endpoint serving its model instead'
  );
}

function statusOf(end: RunEnd): FinalStatus {
  if (end.sandboxProblem !== undefined) return { status: 'failed', error: end.sandboxProblem };
  if (end.stopReason === 'cancelled') return { status: 'cancelled', error: `cancelled on request${byWhom(end.cancelledBy)}` };
  if (end.stopReason === 'shutdown') return { status: 'interrupted', error: 'the localagents server shut down while the job ran; it can be resumed' };
  if (end.stopReason === 'timeout') return { status: 'timeout', error: timeoutWords(end) };
  if (end.setupError !== undefined) return { status: 'failed', error: `localagents failed to run the job: ${errorMessage(end.setupError)}` };
  if (end.resultError !== undefined) return { status: 'failed', error: end.resultError };
  if (end.sessionError !== undefined) {
    const stderr = end.lastStderr ? ` (last stderr line: ${end.lastStderr.slice(0, 500)})` : '';
    return { status: 'failed', error: `Claude Code ended with an error: ${errorMessage(end.sessionError)}${stderr}` };
  }
  if (end.verifyFailure !== undefined) return { status: 'failed', error: end.verifyFailure };
  if (end.finished) return { status: 'succeeded', error: undefined };
  return { status: 'failed', error: 'Claude Code exited without a result' };
}

export function finalStatus(end: RunEnd): FinalStatus {
  const { status, error } = statusOf(end);
  const last = end.lastBackendError;
  // A timeout in an outage has its cause in words already; the backend error before it only started the outage.
  if ((status !== 'failed' && status !== 'timeout') || last === undefined || (status === 'timeout' && end.outageAtEnd !== undefined)) return { status, error };
  const said = `the server said: ${last.message}`;
  return { status, error: `${explanationText(last.explanation)} (last backend error, request ${last.request ?? '?'}; ${said}) — ${error ?? ''}` };
}

/** The outage the job was waiting out as it ended: still live, or just closed by the job's end. */
export function outageAtEnd(record: JobRecord, now: Date): OutageAtEnd | undefined {
  const live = record.outage_wait;
  const last = record.outages?.at(-1);
  const o = live !== undefined ? { endpoint: live.endpoint, since: live.since, saw: live.saw } : last?.outcome === 'job ended' ? { endpoint: last.endpoint, since: last.started_at, saw: last.saw.at(-1) ?? 'was not serving' } : undefined;
  return o === undefined ? undefined : { endpoint: o.endpoint, saw: o.saw, forS: (now.getTime() - Date.parse(o.since)) / 1000 };
}
