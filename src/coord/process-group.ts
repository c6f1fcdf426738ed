/**
 * Ending a process group: Claude Code and a verify check each run in their own
 * group (their children too), so signalling the group ends them all. For a job
 * whose owner died, only a leader whose start time is known and still matches is
 * signalled, so a PID reused by an unrelated program is never touched.
 */
import { isAlive, type ProcessIdentity } from './process-identity.js';

/** The grace between SIGTERM and SIGKILL, as for a job the owner stops itself. */
const KILL_GRACE_MS = 1500;

/** Sends `signal` to every process of the group led by `pgid`; a group already gone (ESRCH) is not an error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

/** SIGTERM to the group now, SIGKILL to whatever is left after `graceMs` (of a group this process started). */
export function stopGroup(pgid: number, graceMs: number): void {
  signalGroup(pgid, 'SIGTERM');
  setTimeout(() => signalGroup(pgid, 'SIGKILL'), graceMs).unref();
}

/** Returns whether a live group was signalled. */
export function endProcessGroup(leader: ProcessIdentity): boolean {
  if (leader.start === undefined || !isAlive(leader)) return false;
  signalGroup(leader.pid, 'SIGTERM');
  setTimeout(() => {
    if (isAlive(leader)) signalGroup(leader.pid, 'SIGKILL');
  }, KILL_GRACE_MS).unref();
  return true;
}
