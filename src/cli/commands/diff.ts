/**
 * `localagents diff JOB`: what a worktree job changed — `git diff` of its kept
 * worktree against the commit it started from, new files included (the job
 * marked them intent-to-add when it ended), through App.diff (src/jobs/git/job-diff.ts).
 */
import type { Command } from 'commander';
import type { CliContext, GlobalOptions } from '../context.js';
import { appJob } from '../job-arg.js';
import { printError, printJson, printNote } from '../output.js';
import { withApp } from '../with-app.js';

export function registerDiff(program: Command, ctx: CliContext): void {
  program
    .command('diff')
    .description("git diff of a worktree job's changes against the commit it started from (new files included)")
    .argument('<job>', 'job id, a unique prefix of it or of its last part, or last')
    .option('--stat', 'only the diffstat')
    .option('--json', 'print {job_id, worktree, branch, base_commit, diff} as JSON')
    .addHelpText('after', '\nExamples:\n  localagents diff 20261129-111500-7gk2mq4xrz9d\n  localagents diff 20261129-111500-7gk2mq4xrz9d --stat\n  localagents diff 20261129-111500-7gk2mq4xrz9d | git apply --check   # would it apply to your tree?')
    .action((id: string, opts: { stat?: boolean; json?: boolean }) =>
      withApp(ctx, program.opts<GlobalOptions>().config, async (app) => {
        const record = await appJob(app, id);
        if (record.worktree && !record.worktree.kept) {
          printNote(`job ${record.id} changed nothing: its worktree and branch were removed`);
          if (opts.json) printJson({ job_id: record.id, worktree: null, branch: null, base_commit: record.worktree.base_commit, diff: '' });
          return;
        }
        const target = app.diff.target(record);
        if ('error' in target) {
          printError(target.error, target.hint);
          ctx.exitCode = 1;
          return;
        }
        if (target.note) printNote(target.note);
        const stat = opts.stat === true;
        if (opts.json) {
          printJson({ job_id: record.id, worktree: target.dir, branch: record.worktree?.branch ?? null, base_commit: target.base, diff: await app.diff.text(target, stat) });
          return;
        }
        if ((await app.diff.toTerminal(target, stat)) !== 0) ctx.exitCode = 1;
      }),
    );
}
