/** `localagents usage`: what the GPU did across every job on record, and what that saved (an estimate). */
import { GROUPINGS } from '../../usage/tally.js';
import { print, printJson, printNote } from '../output.js';
import type { ReadCommand } from '../read-command.js';
import { usageReport } from '../usage-report.js';

export const USAGE_COMMAND: ReadCommand = {
  name: 'usage',
  description: 'tokens, time and the estimated savings of every job on record (any process), grouped by day, week, month, model, endpoint, repo or job',
  options: [
    { flags: '--by <grouping>', description: 'one row per', choices: GROUPINGS, default: 'day' },
    { flags: '--since <when>', description: 'jobs created from this date (2026-12-01) or span back (7d, 12h, 2w)' },
    { flags: '--until <when>', description: 'jobs created up to this date (inclusive) or span back' },
    { flags: '--json', description: 'machine-readable report' },
  ],
  helpAfter: '\nExamples:\n  localagents usage\n  localagents usage --by week --since 30d\n  localagents usage --by model --json | jq .total.estimate',
  async run(ctx, configPath, _argument, opts) {
    const text = (name: string): string | undefined => (typeof opts[name] === 'string' ? opts[name] : undefined);
    const report = await usageReport(ctx, configPath, { by: text('by') ?? 'day', since: text('since'), until: text('until') });
    if (opts['json']) printJson(report.json);
    else print(report.text);
    for (const note of report.problems) printNote(note);
  },
};
