import { describe, expect, it } from 'vitest';
import { finalStatus, type RunEnd } from '../../src/jobs/session/final-status.js';
import type { BackendErrorEvent } from '../../src/jobs/record/job-record.js';

const base: RunEnd = { stopReason: undefined, timeoutS: 60, resultError: undefined, finished: false, lastBackendError: undefined };
const backend: BackendErrorEvent = {
  at: '2026-12-02T07:00:00.000Z', request: 3, status: 503, source: 'http', message: 'Loading model',
  explanation: { kind: 'loading', what: 'The model is still loading.', causes: ['a restart'], try: ['wait'] },
};

describe('finalStatus', () => {
  it('puts our own stop reason first, whatever the session said', () => {
    expect(finalStatus({ ...base, stopReason: 'cancelled', finished: true })).toEqual({ status: 'cancelled', error: 'cancelled on request' });
    expect(finalStatus({ ...base, stopReason: 'shutdown', sessionError: new Error('x') }).status).toBe('interrupted');
    expect(finalStatus({ ...base, stopReason: 'timeout' })).toEqual({ status: 'timeout', error: 'stopped after timeout_s=60 s' });
  });

  it('a timeout while the job waited out its server says so, for how long, and what to do (issue 36)', () => {
    const outageAtEnd = { endpoint: 'gpu', saw: 'is down (host is up, nothing listens on 127.0.0.1:8080 (nothing started, or wrong port))', forS: 200 };
    expect(finalStatus({ ...base, timeoutS: 240, stopReason: 'timeout', outageAtEnd })).toEqual({
      status: 'timeout',
      error:
        'stopped after timeout_s=240 s; for its last 3 min 20 s it was waiting for its model server gpu, which is down (host is up, nothing listens on 127.0.0.1:8080 (nothing started, or wrong port)) and had not come back. ' +
        'Start gpu again with the job\'s model (localagents doctor shows what it answers), then continue the job with run_agent resume_job; with defaults.failover: same_model a job moves to another endpoint serving its model instead',
    });
    // Cancelled while waiting: the user's own stop, no advice.
    expect(finalStatus({ ...base, stopReason: 'cancelled', outageAtEnd }).error).toBe('cancelled on request');
  });

  it('names a setup failure as localagents\' own, and a session error with Claude Code\'s last stderr line', () => {
    expect(finalStatus({ ...base, setupError: new Error('EISDIR: illegal operation on a directory, read') })).toEqual({
      status: 'failed', error: 'localagents failed to run the job: EISDIR: illegal operation on a directory, read',
    });
    expect(finalStatus({ ...base, sessionError: new Error('exited with code 3'), lastStderr: 'fatal: no config' })).toEqual({
      status: 'failed', error: 'Claude Code ended with an error: exited with code 3 (last stderr line: fatal: no config)',
    });
  });

  it('succeeds only on a final result, and an error result wins over the exit', () => {
    expect(finalStatus({ ...base, finished: true })).toEqual({ status: 'succeeded', error: undefined });
    expect(finalStatus({ ...base, finished: true, resultError: 'max turns reached', sessionError: new Error('x') })).toEqual({ status: 'failed', error: 'max turns reached' });
    expect(finalStatus(base)).toEqual({ status: 'failed', error: 'Claude Code exited without a result' });
  });

  it('leads a failure or timeout with the last backend error in words; a success ignores it', () => {
    const failed = finalStatus({ ...base, lastBackendError: backend });
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/^The model is still loading\. Likely: a restart\. Try: wait\. \(last backend error, request 3; the server said: Loading model\) — Claude Code exited without a result$/);
    expect(finalStatus({ ...base, finished: true, lastBackendError: backend })).toEqual({ status: 'succeeded', error: undefined });
  });
});
