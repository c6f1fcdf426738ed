/** `localagents dashboard`: the live web page, on 127.0.0.1, until Ctrl-C. */
import type { Command } from 'commander';
import { startDashboard } from '../../dashboard/server.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { print } from '../output.js';
import { withApp } from '../with-app.js';

export function registerDashboard(program: Command, ctx: CliContext): void {
  program
    .command('dashboard')
    .description('serve a live dashboard of endpoints and jobs on 127.0.0.1 (the URL carries a secret token)')
    .option('--port <n>', 'port to listen on (default: any free port)')
    .addHelpText('after', '\nExamples:\n  localagents dashboard\n  localagents dashboard --port 8799\n\nOpen the printed URL; it stops with Ctrl-C. Jobs started elsewhere (MCP server, localagents run) show up from the shared state directory.\n')
    .action((opts: { port?: string }) =>
      withApp(ctx, program.opts<GlobalOptions>().config, async (app) => {
        const dashboard = await startDashboard(app, { port: Number(opts.port ?? 0), log: ctx.log });
        print(`localagents dashboard: ${dashboard.url}`);
        await new Promise<void>((resolve) => {
          for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
        });
        await dashboard.close();
      }),
    );
}
