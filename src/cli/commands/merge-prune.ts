/** `localagents merge JOB` and `localagents prune`: finishing and tidying worktree jobs. */
import type { Command } from 'commander';
import { parseSpan } from '../../amounts.js';
import { BadArgumentError } from '../../errors.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { appJob } from '../job-arg.js';
import { print, printJson } from '../output.js';
import { withApp } from '../with-app.js';

export function registerMergePrune(program: Command, ctx: CliContext): void {
  program
    .command('merge')
    .description("merge a worktree job's branch into your branch in the main checkout (its uncommitted work is committed first); refuses on conflicts")
    .argument('<job>', 'job id, a unique prefix of it or of its last part, or last')
    .option('--json', 'machine-readable output')
    .addHelpText('after', `
Run it in the main checkout of the repository the job worked on, on your branch,
with no uncommitted changes (anywhere else it refuses). On a conflict nothing is changed,
and the error gives the git commands to finish the merge by hand.

Examples:
  localagents merge last
  localagents merge 7gk2`)
    .action((id: string, opts: { json?: boolean }) =>
      withApp(ctx, program.opts<GlobalOptions>().config, async (app) => {
        const record = await appJob(app, id);
        const outcome = await app.merge(record, ctx.cwd);
        if (opts.json) return printJson({ job_id: record.id, ...outcome });
        if (!outcome.merged) return print(`${outcome.branch} is already in ${outcome.into}; nothing to merge (${outcome.into} stays at ${outcome.head.slice(0, 12)}).`);
        print(
          `${outcome.committed ? `committed the worktree's uncommitted work (${outcome.committed.slice(0, 12)}); ` : ''}merged ${outcome.branch} into ${outcome.into} in ${outcome.repo} (now ${outcome.head.slice(0, 12)}).\n` +
            `Tidy up later with localagents prune (it removes merged job branches and worktrees).`,
        );
      }),
    );

  program
    .command('prune')
    .description("remove finished jobs' records, worktrees and local-agent/* branches — never a branch or worktree with unmerged work")
    .option('--older-than <age>', 'only jobs finished before this long ago: 30m, 12h, 7d, 2w', '7d')
    .option('--dry-run', 'say what would be removed, remove nothing')
    .option('--json', 'machine-readable output')
    .addHelpText('after', `
Examples:
  localagents prune --dry-run
  localagents prune --older-than 1d`)
    .action((opts: { olderThan: string; dryRun?: boolean; json?: boolean }) =>
      withApp(ctx, program.opts<GlobalOptions>().config, async (app) => {
        const olderThanMs = parseSpan(opts.olderThan);
        if (olderThanMs === undefined) throw new BadArgumentError('--older-than', `--older-than takes a number and a unit (s, m, h, d, w), like 7d, not "${opts.olderThan}"`);
        const actions = await app.prune({ olderThanMs, dryRun: opts.dryRun === true });
        if (opts.json) return printJson(actions);
        const verb = opts.dryRun ? 'would remove' : 'removed';
        const lines = actions.map((a) => (a.removed ? `${verb} job ${a.job_id}: ${a.what}` : `job ${a.job_id} ${a.what}`));
        print(lines.length > 0 ? lines.join('\n') : `no finished jobs older than ${opts.olderThan}`);
      }),
    );
}
