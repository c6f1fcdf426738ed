/** `localagents log JOB [-f]`: the readable transcript; -f follows it like tail -f until the job ends. */
import type { Command } from 'commander';
import type { App } from '../../app.js';
import { BadArgumentError } from '../../errors.js';
import { FINISHED } from '../../jobs/record/job-record.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { createInFlightNotes } from '../follow/in-flight-notes.js';
import { appJob } from '../job-arg.js';
import { print } from '../output.js';
import { withApp } from '../with-app.js';

const POLL_MS = 300;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function followLog(app: App, id: string, lines: number | undefined): Promise<void> {
  const follow = app.followJob(id);
  const emit = (batch: readonly string[]): void => {
    if (batch.length > 0) print(batch.join('\n'));
  };
  const notes = createInFlightNotes();
  for (let first = true; ; first = false) {
    const { record, lines: batch } = await follow.poll();
    emit(first && lines !== undefined ? batch.slice(-lines) : batch);
    emit(notes.lines(record));
    if (FINISHED.has(record.status)) {
      // The record can land a moment before the transcript's last write is flushed.
      await sleep(POLL_MS);
      emit((await follow.poll()).lines);
      const rest = follow.rest();
      if (rest) print(rest);
      return;
    }
    await sleep(POLL_MS);
  }
}

export function registerLog(program: Command, ctx: CliContext): void {
  program
    .command('log')
    .description("a job's transcript: assistant text, thinking (shortened), tool calls and results, backend errors")
    .argument('<job>', 'job id, a unique prefix of it or of its last part, or last')
    .option('-f, --follow', 'keep printing new lines until the job ends (works for jobs of any localagents process)')
    .option('-n, --lines <n>', 'only the last n lines (before following)')
    .addHelpText('after', '\nExamples:\n  localagents log 20261129-111500-7gk2mq4xrz9d\n  localagents log 20261129-111500-7gk2mq4xrz9d -f\n  localagents log 20261129-111500-7gk2mq4xrz9d -n 20')
    .action((id: string, opts: { follow?: boolean; lines?: string }) =>
      withApp(ctx, program.opts<GlobalOptions>().config, async (app) => {
        const lines = opts.lines === undefined ? undefined : Number(opts.lines);
        if (lines !== undefined && (!Number.isInteger(lines) || lines < 1)) {
          throw new BadArgumentError('--lines', `--lines must be a positive whole number, not "${opts.lines ?? ''}"`);
        }
        const record = await appJob(app, id);
        if (opts.follow) return followLog(app, record.id, lines);
        const text = await app.jobs.tail(record.id, lines ?? Number.MAX_SAFE_INTEGER);
        print(text || `(job ${record.id} has no transcript yet: ${record.status})`);
      }),
    );
}
