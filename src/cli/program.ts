/**
 * The command line: `localagents` (the MCP server) and its subcommands. Each
 * action builds the app, calls one service and prints; main.ts owns the
 * process (exit codes, the single catch).
 */
import { Command, Option } from 'commander';
import { createApp, type App, type AppOptions } from '../app.js';
import type { Logger } from '../log.js';
import { createMcpServer } from '../mcp/server.js';
import { serveHttp, serveStdio } from '../mcp/transports.js';
import { formatModelList } from '../registry/format-model-list.js';
import { formatChecks, runDoctor } from './doctor.js';
import { print, printJson } from './output.js';

export interface CliContext {
  readonly version: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: Logger;
  /** Set by an action to the process exit code. */
  exitCode: number;
}

async function withApp<T>(ctx: CliContext, configPath: string | undefined, use: (app: App) => Promise<T>): Promise<T> {
  const options: AppOptions = { configPath, cwd: ctx.cwd, env: ctx.env, log: ctx.log };
  const app = createApp(options);
  try {
    return await use(app);
  } finally {
    await app.close();
  }
}

async function serve(ctx: CliContext, opts: { config?: string; transport: string; port: string }): Promise<void> {
  await withApp(ctx, opts.config, async (app) => {
    if (opts.transport === 'http') {
      const handle = await serveHttp(() => createMcpServer(app, ctx.version), Number(opts.port));
      ctx.log.warn('MCP streamable HTTP on %s', handle.url);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await handle.close();
    } else {
      await serveStdio(createMcpServer(app, ctx.version));
    }
  });
}

export function buildProgram(ctx: CliContext): Command {
  const program = new Command('localagents')
    .description('MCP server that runs headless Claude Code sessions on your own llama.cpp / vLLM servers')
    .version(ctx.version)
    .option('--config <path>', 'models.yaml to use (default: $LOCALAGENTS_CONFIG, ./models.yaml, ~/.config/localagents/models.yaml)')
    .addOption(new Option('--transport <kind>', 'MCP transport').choices(['stdio', 'http']).default('stdio'))
    .option('--port <n>', 'port for --transport http (127.0.0.1 only)', '8765')
    .showHelpAfterError()
    .addHelpText('after', `
Examples:
  claude mcp add --scope user local -- localagents --config ~/models.yaml
  localagents models            what every endpoint serves right now
  localagents doctor            check config, servers and the bundled Claude Code`)
    .action((opts: { config?: string; transport: string; port: string }) => serve(ctx, opts));

  program
    .command('mcp')
    .description('run the MCP server (the default when no command is given)')
    .action(() => serve(ctx, program.opts()));

  program
    .command('models')
    .description('probe every endpoint and show what it serves, its context, slots and the model menu')
    .option('--json', 'machine-readable output')
    .addHelpText('after', '\nExamples:\n  localagents models\n  localagents --config ./models.yaml models --json')
    .action((opts: { json?: boolean }) =>
      withApp(ctx, program.opts<{ config?: string }>().config, async (app) => {
        const listing = await app.listModels();
        if (opts.json) printJson(listing);
        else print(formatModelList(listing));
      }),
    );

  program
    .command('doctor')
    .description('check the config, every endpoint and the bundled Claude Code binary; say how to fix what is wrong')
    .option('--json', 'machine-readable output')
    .action((opts: { json?: boolean }) =>
      withApp(ctx, program.opts<{ config?: string }>().config, async (app) => {
        const checks = await runDoctor(app);
        if (opts.json) printJson(checks);
        else print(formatChecks(checks));
        ctx.exitCode = checks.every((c) => c.ok) ? 0 : 1;
      }),
    );

  return program;
}
