/**
 * `localagents cancel JOB`. A job runs inside the process that started it, so
 * this command can only ask that process:
 * - a `localagents run` process or an MCP server is asked through the state
 *   directory, as cancel_job does (src/coord/cancel-requests.ts), and stops
 *   that one job: the record ends `cancelled`; --force instead ends the job's
 *   Claude Code process group at once (for a server that does not answer),
 *   and the server records the job failed;
 * - a job whose server died is already `interrupted`: its Claude Code, if still alive, is ended.
 */
import type { Command } from 'commander';
import type { App } from '../../app.js';
import { errorMessage } from '../../errors.js';
import { FINISHED, type JobRecord } from '../../jobs/record/job-record.js';

import type { CliContext, GlobalOptions } from '../context.js';
import { jobJson, jobReport } from '../format-job.js';
import { appJob } from '../job-arg.js';
import { print, printError, printJson, printNote } from '../output.js';
import { withApp } from '../with-app.js';

/** Enough for the kill ladder (SDK grace, SIGTERM, SIGKILL after 1.5 s) and the worktree finish. */
const STOP_WAIT_MS = 30_000;

async function untilFinished(app: App, id: string, timeoutMs: number): Promise<JobRecord> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const record = await app.jobs.get(id);
    if (FINISHED.has(record.status) || performance.now() > deadline) return record;
    await new Promise((r) => setTimeout(r, 200));
  }
}

function signal(pid: number, sig: NodeJS.Signals): string | undefined {
  try {
    process.kill(pid, sig);
    return undefined;
  } catch (err) {
    return errorMessage(err);
  }
}

interface CancelOutcome {
  readonly record: JobRecord;
  /** Why we could not stop it, with what to do instead. */
  readonly refused?: { readonly message: string; readonly hint: string };
  readonly note?: string;
}

async function cancelJob(app: App, id: string, force: boolean): Promise<CancelOutcome> {
  const record = await appJob(app, id);
  if (FINISHED.has(record.status)) {
    if (record.status === 'interrupted') await app.jobs.cancel(record.id); // ends the Claude Code its dead owner left, if alive
    const note = record.status === 'interrupted'
      ? `job ${record.id} was already interrupted: the localagents process that ran it (pid ${record.owner_pid}) is gone, so nothing runs any more`
      : `job ${record.id} had already ended: ${record.status}`;
    return { record, note };
  }
  if (!force) {
    printNote(`asking localagents process ${record.owner_pid} to cancel job ${record.id}…`);
    const after = await app.jobs.cancel(record.id);
    if (FINISHED.has(after.status)) return { record: after };
    return {
      record: after,
      refused: {
        message: `job ${record.id} is still ${after.status}: localagents process ${record.owner_pid} did not answer the cancel request`,
        hint: after.claude_pid !== undefined
          ? `Run localagents cancel --force ${record.id} to end its Claude Code process group (pid ${after.claude_pid}); the job is then recorded as failed.`
          : `In the Claude Code session that started it, ask Claude to cancel job ${record.id}.`,
      },
    };
  }
  if (record.status !== 'running' || record.claude_pid === undefined) {
    return { record, refused: { message: `job ${record.id} is ${record.status} and has no Claude Code process to end yet`, hint: `Run localagents cancel ${record.id} without --force.` } };
  }
  // A negative pid signals the whole group: Claude Code and the shells and tools it started.
  const failed = signal(-record.claude_pid, 'SIGTERM');
  if (failed) return { record, refused: { message: `could not signal Claude Code's process group ${record.claude_pid}: ${failed}`, hint: `In the Claude Code session that started it, ask Claude to cancel job ${record.id}.` } };
  printNote(`sent SIGTERM to Claude Code's process group ${record.claude_pid}; server pid ${record.owner_pid} will record job ${record.id} as failed…`);
  return { record: await untilFinished(app, record.id, STOP_WAIT_MS) };
}

export function registerCancel(program: Command, ctx: CliContext): void {
  program
    .command('cancel')
    .description('stop a running or queued job (its Claude Code process and the commands it started end; work already written stays)')
    .argument('<job>', 'job id, a unique prefix of it or of its last part, or last')
    .option('--force', "for a job of an MCP server: end its Claude Code process group now instead of asking the server (recorded as failed, not cancelled)")
    .option('--json', 'print the job record as JSON')
    .addHelpText('after', `
A job is cancelled cleanly by the localagents run or MCP server process that
runs it, which this command asks through the state directory; --force ends its
Claude Code at once instead.
Exit code: 0 when the job is no longer running, 1 otherwise.

Examples:
  localagents cancel 20261129-111500-7gk2mq4xrz9d
  localagents cancel --force 20261129-111500-7gk2mq4xrz9d`)
    .action((id: string, opts: { force?: boolean; json?: boolean }) =>
      withApp(ctx, program.opts<GlobalOptions>().config, async (app) => {
        const outcome = await cancelJob(app, id, opts.force === true);
        if (outcome.refused) {
          printError(outcome.refused.message, outcome.refused.hint);
          ctx.exitCode = 1;
          return;
        }
        if (outcome.note) printNote(outcome.note);
        if (opts.json) printJson(jobJson(outcome.record));
        else print(jobReport(outcome.record));
        ctx.exitCode = FINISHED.has(outcome.record.status) ? 0 : 1;
      }),
    );
}
