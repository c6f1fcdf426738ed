/** `localagents statusline`: one line for Claude Code's statusLine setting. */
import type { Command } from 'commander';
import type { CliContext, GlobalOptions } from '../context.js';
import { print } from '../output.js';

export function registerStatusline(program: Command, ctx: CliContext): void {
  program
    .command('statusline')
    .description("one line for Claude Code's statusLine setting: running and queued jobs (this project's first), the open request, today's estimated savings")
    .addHelpText('after', '\nIn ~/.claude/settings.json:\n  "statusLine": { "type": "command", "command": "localagents statusline" }')
    .action(async () => {
      const { statusLine } = await import('../statusline.js');
      const line = await statusLine(ctx, program.opts<GlobalOptions>().config).catch(() => 'localagents: status unavailable');
      if (line !== '') print(line);
    });
}
