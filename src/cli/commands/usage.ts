/** `localagents usage`: what the GPU did across every job on record, and what that saved (an estimate). */
import { Option, type Command } from 'commander';
import { GROUPINGS } from '../../usage/tally.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { print, printJson, printNote } from '../output.js';
import { usageReport } from '../usage-report.js';

export function registerUsage(program: Command, ctx: CliContext): void {
  program
    .command('usage')
    .description('tokens, time and the estimated savings of every job on record (any process), grouped by day, week, month, model, endpoint, repo or job')
    .addOption(new Option('--by <grouping>', 'one row per').choices([...GROUPINGS]).default('day'))
    .option('--since <when>', 'jobs created from this date (2026-12-01) or span back (7d, 12h, 2w)')
    .option('--until <when>', 'jobs created up to this date (inclusive) or span back')
    .option('--json', 'machine-readable report')
    .addHelpText('after', '\nExamples:\n  localagents usage\n  localagents usage --by week --since 30d\n  localagents usage --by model --json | jq .total.estimate')
    .action(async (opts: { by: string; since?: string; until?: string; json?: boolean }) => {
      const report = await usageReport(ctx, program.opts<GlobalOptions>().config, opts);
      if (opts.json) printJson(report.json);
      else print(report.text);
      for (const note of report.problems) printNote(note);
    });
}
