/**
 * Nested delegation: a delegated session must never start jobs of its own
 * through localagents, whatever the user's MCP config and allow rules say.
 * Every session's environment carries the job's id under this name (pinned
 * above the repository's settings); a localagents server or `run` that finds
 * it refuses to start, so Claude Code lists the server as failed and the
 * session never sees its tools.
 */
import { LocalAgentsError } from '../../errors.js';

export const JOB_ENV_MARKER = 'LOCALAGENTS_JOB_ID';

/** Throws when this process was started from inside a delegated session. */
export function refuseInsideJob(env: Readonly<Record<string, string | undefined>>, what: string): void {
  const job = env[JOB_ENV_MARKER];
  if (job === undefined || job === '') return;
  throw new LocalAgentsError('nested_job', `refusing to start ${what} inside localagents job ${job}: a delegated session may not delegate again`, {
    hint: `${JOB_ENV_MARKER} is set by localagents for every session it runs; nested jobs would multiply GPU load and escape the caller's limits.`,
    details: { job },
  });
}
