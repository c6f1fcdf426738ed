/**
 * Ending the Claude Code process group of a job whose owner died: Claude Code runs
 * in its own group (its Bash tool children too), so signalling the group ends them
 * all. Only a leader whose start time is known and still matches is signalled, so
 * a PID reused by an unrelated program is never touched.
 */
import { isAlive, type ProcessIdentity } from './process-identity.js';

/** The grace between SIGTERM and SIGKILL, as for a job the owner stops itself. */
const KILL_GRACE_MS = 1500;

/** Returns whether a live group was signalled. */
export function endProcessGroup(leader: ProcessIdentity): boolean {
  if (leader.start === undefined || !isAlive(leader)) return false;
  const signal = (sig: NodeJS.Signals): void => {
    try {
      process.kill(-leader.pid, sig);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  setTimeout(() => {
    if (isAlive(leader)) signal('SIGKILL');
  }, KILL_GRACE_MS).unref();
  return true;
}
