/**
 * The command line: `localagents` (the MCP server) and its subcommands. Each
 * action builds the app, calls one service and prints; main.ts owns the
 * process (exit codes, the single catch).
 */
import { Command, Option, type CommanderError } from 'commander';
import { closestMatch } from '../config/describe-schema.js';
import { BadArgumentError } from '../errors.js';
import { formatModelList } from '../registry/format-model-list.js';
import { PERSON_NEXT_STEPS } from '../registry/model-list.js';
import { registerCancel } from './commands/cancel.js';
import { registerDashboard } from './commands/dashboard.js';
import { HTTP_TOKEN_ENV, serve, TRANSPORTS, type ServeOptions } from './commands/serve.js';
import { registerDiff } from './commands/diff.js';
import { registerDoctor } from './commands/doctor.js';
import { registerInit } from './commands/init.js';
import { registerJobs } from './commands/jobs.js';
import { registerLog } from './commands/log.js';
import { registerMergePrune } from './commands/merge-prune.js';
import { registerRun } from './commands/run.js';
import { registerStatusline } from './commands/statusline.js';
import { registerUsage } from './commands/usage.js';
import type { CliContext, GlobalOptions } from './context.js';
import { print, printJson } from './output.js';
import { withApp } from './with-app.js';

export type { CliContext } from './context.js';

/**
 * Usage errors (unknown option, bad choice, missing argument) become one
 * bad_argument line for main.ts to print, exit 2, instead of commander's own
 * print-and-exit-1. --help and --version still exit 0 through commander.
 */
function oneLineUsageErrors(command: Command, name: string): void {
  command.configureOutput({ outputError: () => undefined });
  command.exitOverride((err: CommanderError) => {
    if (err.exitCode === 0) return;
    throw new BadArgumentError('usage', err.message.replace(/^error: /, ''), { hint: `${name} --help shows the options and examples.` });
  });
}

function intro(): string {
  return `localagents: the MCP server that runs delegated Claude Code sessions on your own llama.cpp / vLLM servers.
Claude Code starts it (it speaks MCP on stdin/stdout); on a terminal it only prints this.

Commands to try:
  localagents doctor --self-test   prove the install works (no model server needed)
  localagents init                 find model servers on this machine and write models.yaml
  localagents models               what every endpoint serves right now
  localagents run "a task"         delegate a task from the project you are in
  localagents jobs                 running and queued jobs (show / log / diff / merge / cancel JOB)
  localagents dashboard            a live page of endpoints and jobs
  localagents help <command>       the options and examples of one command

To add it to Claude Code: claude mcp add --scope user localagents -- localagents
(\`localagents mcp\` runs the server here anyway.)`;
}

export function buildProgram(ctx: CliContext): Command {
  const program = new Command('localagents')
    .description('MCP server that runs headless Claude Code sessions on your own llama.cpp / vLLM servers')
    .version(ctx.version)
    .option('--config <path>', 'models.yaml to use (default: $LOCALAGENTS_CONFIG, ./models.yaml, ~/.config/localagents/models.yaml)')
    .addOption(new Option('--transport <kind>', 'MCP transport (http is streamable HTTP; sse is refused)').choices([...TRANSPORTS]).default('stdio'))
    .option('--port <n>', 'port for --transport http', '8765')
    .option('--host <address>', `address --transport http binds; anything but loopback warns (a bearer token is always required: ${HTTP_TOKEN_ENV} or a new one per start)`, '127.0.0.1')
    .option('--allowed-host <name...>', 'extra Host names --transport http answers to (default: only the bound address, plus 127.0.0.1 and localhost on loopback)')
    .option('--dashboard', 'also serve the live dashboard; its URL goes to stderr and <state dir>/dashboard-url')
    .option('--dashboard-port <n>', 'port for --dashboard (default: any free port)')
    .addHelpText('after', `
Examples:
  claude mcp add --scope user local -- localagents --config ~/models.yaml
  localagents doctor --self-test   prove the install works (no model server needed)
  localagents models               what every endpoint serves right now
  localagents doctor               check config, servers and the bundled Claude Code
  localagents run "Add tests for src/parse.ts; run npm test" --isolation worktree
  localagents jobs                 running and queued jobs; show / log -f / diff / cancel JOB`)
    .helpCommand('help [command]', 'the options and examples of one command')
    .allowExcessArguments()
    .action((opts: ServeOptions, command: Command) => {
      const [unknown] = command.args;
      if (unknown !== undefined) {
        const names = command.commands.map((c) => c.name());
        const guess = closestMatch(unknown, names);
        throw new BadArgumentError('command', `unknown command '${unknown}'${guess ? ` — did you mean ${guess}?` : ''}`, {
          hint: `The commands are ${names.join(', ')}; localagents --help explains them.`,
        });
      }
      // A person typed `localagents` at a terminal: say what this is instead of waiting silently for MCP messages.
      if (ctx.stdinIsTty && opts.transport === 'stdio') {
        print(intro());
        return;
      }
      return serve(ctx, opts);
    });

  program
    .command('mcp')
    .description('run the MCP server (the default when no command is given)')
    .action(() => serve(ctx, program.opts<ServeOptions>()));

  program
    .command('models')
    .description('probe every endpoint and show what it serves, its context, slots and the model menu')
    .option('--json', 'machine-readable output')
    .addHelpText('after', '\nExamples:\n  localagents models\n  localagents --config ./models.yaml models --json')
    .action((opts: { json?: boolean }) =>
      withApp(ctx, program.opts<GlobalOptions>().config, async (app) => {
        const listing = await app.listModels();
        if (opts.json) printJson({ ...listing, next_steps: PERSON_NEXT_STEPS });
        else print(formatModelList(listing, 'person'));
      }),
    );

  registerInit(program, ctx);
  registerDoctor(program, ctx);
  registerRun(program, ctx);
  registerJobs(program, ctx);
  registerLog(program, ctx);
  registerCancel(program, ctx);
  registerDiff(program, ctx);
  registerMergePrune(program, ctx);
  registerDashboard(program, ctx);
  registerUsage(program, ctx);
  registerStatusline(program, ctx);
  for (const command of [program, ...program.commands]) oneLineUsageErrors(command, command === program ? 'localagents' : `localagents ${command.name()}`);
  return program;
}
