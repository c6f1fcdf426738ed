/**
 * How a job ended, in one pure step: our own stop reason first (cancel,
 * shutdown, timeout), then what the session said, then how it exited. After
 * backend errors, the cause in words comes first in `error`; what Claude Code
 * made of it follows.
 */
import { errorMessage } from '../../errors.js';
import { explanationText } from '../../shim/translate/error-catalogue.js';
import type { BackendErrorEvent, JobStatus } from '../record/job-record.js';

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
}

export interface FinalStatus {
  readonly status: JobStatus;
  readonly error: string | undefined;
}

/** ` of <who>` when the canceller is known. */
export const byWhom = (who: string | undefined): string => (who === undefined ? '' : ` of ${who}`);

function statusOf(end: RunEnd): FinalStatus {
  if (end.sandboxProblem !== undefined) return { status: 'failed', error: end.sandboxProblem };
  if (end.stopReason === 'cancelled') return { status: 'cancelled', error: `cancelled on request${byWhom(end.cancelledBy)}` };
  if (end.stopReason === 'shutdown') return { status: 'interrupted', error: 'the localagents server shut down while the job ran; it can be resumed' };
  if (end.stopReason === 'timeout') return { status: 'timeout', error: `stopped after timeout_s=${end.timeoutS} s` };
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
  if ((status !== 'failed' && status !== 'timeout') || last === undefined) return { status, error };
  const said = `the server said: ${last.message}`;
  return { status, error: `${explanationText(last.explanation)} (last backend error, request ${last.request ?? '?'}; ${said}) — ${error ?? ''}` };
}
