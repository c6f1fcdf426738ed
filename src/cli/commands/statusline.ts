/** `localagents statusline`: one line for Claude Code's statusLine setting. */
import type { Command } from 'commander';
import type { CliContext, GlobalOptions } from '../context.js';
import { printStatusLine } from '../statusline.js';

export function registerStatusline(program: Command, ctx: CliContext): void {
  program
    .command('statusline')
    .description("one line for Claude Code's statusLine setting: running and queued jobs (this project's first), the open request, today's estimated savings")
    .addHelpText('after', '\nIn ~/.claude/settings.json:\n  "statusLine": { "type": "command", "command": "localagents statusline" }')
    .action(() => printStatusLine(ctx, program.opts<GlobalOptions>().config));
}
