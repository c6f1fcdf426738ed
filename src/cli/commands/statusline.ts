/** `localagents statusline`: one line for Claude Code's statusLine setting. */
import type { ReadCommand } from '../read-command.js';
import { printStatusLine } from '../statusline.js';

export const STATUSLINE_COMMAND: ReadCommand = {
  name: 'statusline',
  description: "one line for Claude Code's statusLine setting: running and queued jobs (this project's first), the open request, today's estimated savings",
  options: [],
  helpAfter: '\nIn ~/.claude/settings.json:\n  "statusLine": { "type": "command", "command": "localagents statusline" }',
  run: (ctx, configPath) => printStatusLine(ctx, configPath),
};
