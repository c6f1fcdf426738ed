/**
 * The command line: `localagents` (the MCP server) and its subcommands. Each
 * action builds the app, calls one service and prints; main.ts owns the
 * process (exit codes, the single catch).
 *
 * A command's module is loaded only when that command runs (all of them for
 * --help): `localagents --version` or `statusline` must not load the Agent SDK,
 * the MCP SDK, the shim and the dashboard first (BENCHMARKS.md, start time).
 */
import { Command, Option, type CommanderError } from 'commander';
import { BadArgumentError } from '../errors.js';
import { HTTP_TOKEN_ENV, TRANSPORTS, type ServeOptions } from './commands/serve-options.js';
import type { CliContext, GlobalOptions } from './context.js';
import { holdStdio } from '../mcp/tasks/stdio-hold.js';
import { print, printJson } from './output.js';

export type { CliContext } from './context.js';

/** A usage mistake (`localagents jobs` for `commandLine`): one line, then where the help is. */
function usageError(commandLine: string, message: string): BadArgumentError {
  return new BadArgumentError('usage', message, { hint: `${commandLine} --help shows the options and examples.` });
}

/**
 * Usage errors (unknown option, bad choice, missing argument) become one
 * bad_argument line for main.ts to print, exit 2, instead of commander's own
 * print-and-exit-1. --help and --version still exit 0 through commander.
 */
function oneLineUsageErrors(command: Command, name: string): void {
  command.configureOutput({ outputError: () => undefined });
  command.exitOverride((err: CommanderError) => {
    if (err.exitCode === 0) return;
    throw usageError(name, err.message.replace(/^error: /, ''));
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

/** Claude Code's server/discover probe is answered while the server loads (src/mcp/tasks/stdio-hold.ts). */
async function holdStdioFor(ctx: CliContext, opts: ServeOptions): Promise<void> {
  if (opts.transport === 'stdio') await holdStdio(ctx.version);
}

type Register = (program: Command, ctx: CliContext) => void;

/** Every subcommand defined in its own module, by name, loaded on demand. */
const COMMANDS: Readonly<Record<string, () => Promise<Register>>> = {
  init: async () => (await import('./commands/init.js')).registerInit,
  doctor: async () => (await import('./commands/doctor.js')).registerDoctor,
  run: async () => (await import('./commands/run.js')).registerRun,
  jobs: async () => (await import('./commands/jobs.js')).registerJobs,
  show: async () => (await import('./commands/jobs.js')).registerShow,
  log: async () => (await import('./commands/log.js')).registerLog,
  cancel: async () => (await import('./commands/cancel.js')).registerCancel,
  diff: async () => (await import('./commands/diff.js')).registerDiff,
  merge: async () => (await import('./commands/merge-prune.js')).registerMergePrune,
  prune: async () => (await import('./commands/merge-prune.js')).registerMergePrune,
  dashboard: async () => (await import('./commands/dashboard.js')).registerDashboard,
  usage: async () => (await import('./commands/usage.js')).registerUsage,
  statusline: async () => (await import('./commands/statusline.js')).registerStatusline,
};

/** The commands defined here rather than in a module of their own. */
const INLINE_COMMANDS = ['mcp', 'models'];

/**
 * The command modules `argv` needs: that of the subcommand it names (its first
 * operand, skipping the root options and their values), or all of them when help
 * is asked for, so every command is listed.
 */
function commandsIn(program: Command, argv: readonly string[]): string[] {
  const all = Object.keys(COMMANDS);
  const named = (name: string | undefined): string[] => (name !== undefined && name in COMMANDS ? [name] : []);
  const takesValue = new Set(program.options.filter((o) => o.required || o.optional).flatMap((o) => [o.long, o.short].filter((f) => f !== undefined)));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--help' || arg === '-h' || arg === 'help') return all;
    if (arg === '--') return named(argv[i + 1]);
    if (!arg.startsWith('-')) return named(arg);
    if (!arg.includes('=') && takesValue.has(arg)) i++;
  }
  return [];
}

async function registerCommands(program: Command, ctx: CliContext, wanted: readonly string[]): Promise<void> {
  const registers = new Set(await Promise.all(wanted.map((n) => (COMMANDS[n] as () => Promise<Register>)())));
  // In COMMANDS order, which is the order --help lists them.
  for (const register of registers) register(program, ctx);
}

/** `argv` is the user's arguments (process.argv without node and the script): it says which command modules to load. */
export async function buildProgram(ctx: CliContext, argv: readonly string[]): Promise<Command> {
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
    .action(async (opts: ServeOptions, command: Command) => {
      const [unknown] = command.args;
      if (unknown !== undefined) {
        const names = [...INLINE_COMMANDS, ...Object.keys(COMMANDS)];
        const { closestMatch } = await import('../config/closest-match.js');
        const guess = closestMatch(unknown, names);
        throw new BadArgumentError('command', `unknown command '${unknown}'${guess ? ` — did you mean ${guess}?` : ''}`, {
          hint: `The commands are ${names.join(', ')}; localagents --help explains them.`,
        });
      }
      // A person typed `localagents` at a terminal: say what this is instead of waiting silently for MCP messages.
      if (ctx.stdinIsTty() && opts.transport === 'stdio') {
        print(intro());
        return;
      }
      await holdStdioFor(ctx, opts);
      const { serve } = await import('./commands/serve.js');
      return serve(ctx, opts);
    });

  program
    .command('mcp')
    .description('run the MCP server (the default when no command is given)')
    .action(async () => {
      await holdStdioFor(ctx, program.opts<ServeOptions>());
      return (await import('./commands/serve.js')).serve(ctx, program.opts<ServeOptions>());
    });

  program
    .command('models')
    .description('probe every endpoint and show what it serves, its context, slots and the model menu')
    .option('--json', 'machine-readable output')
    .addHelpText('after', '\nExamples:\n  localagents models\n  localagents --config ./models.yaml models --json')
    .action(async (opts: { json?: boolean }) => {
      const [{ withApp }, { formatModelList }, { LISTING_FOR_PERSON }] = await Promise.all([
        import('./with-app.js'),
        import('../registry/format-model-list.js'),
        import('./listing-words.js'),
      ]);
      await withApp(ctx, program.opts<GlobalOptions>().config, async (app) => {
        const listing = await app.listModels();
        if (opts.json) printJson({ ...listing, next_steps: LISTING_FOR_PERSON.nextSteps });
        else print(formatModelList(listing, LISTING_FOR_PERSON));
      });
    });

  await registerCommands(program, ctx, commandsIn(program, argv));
  for (const command of [program, ...program.commands]) oneLineUsageErrors(command, command === program ? 'localagents' : `localagents ${command.name()}`);
  return program;
}
