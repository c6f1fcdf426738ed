/**
 * `localagents` / `localagents mcp`: the MCP server, on stdio (what `claude mcp
 * add` launches) or streamable HTTP on 127.0.0.1, optionally with the
 * dashboard. A signal or the client going away closes the app, so running jobs
 * are recorded `interrupted` (resumable) instead of being left `running`.
 */
import { writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { App } from '../../app.js';
import { startDashboard } from '../../dashboard/server.js';
import { createMcpServer } from '../../mcp/server.js';
import { serveHttp, serveStdio } from '../../mcp/transports.js';
import type { CliContext } from '../context.js';
import { withApp } from '../with-app.js';

export interface ServeOptions {
  readonly config?: string;
  readonly transport: string;
  readonly port: string;
  readonly dashboard?: boolean;
  readonly dashboardPort?: string;
}

/** Resolves on the first of SIGINT / SIGTERM / SIGHUP. */
function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => resolve());
  });
}

/**
 * Under stdio, stdout is the protocol and Claude Code hides stderr: the
 * dashboard URL (with its token) also goes to a file only the owner can read.
 */
async function announceDashboard(app: App, ctx: CliContext, url: string): Promise<void> {
  ctx.log.warn('dashboard: %s', url);
  await mkdir(app.stateDir, { recursive: true, mode: 0o700 });
  await writeFile(join(app.stateDir, 'dashboard-url'), `${url}\n`, { mode: 0o600 });
}

export async function serve(ctx: CliContext, opts: ServeOptions): Promise<void> {
  await withApp(ctx, opts.config, async (app) => {
    const dashboard = opts.dashboard ? await startDashboard(app, { port: Number(opts.dashboardPort ?? 0), log: ctx.log }) : undefined;
    try {
      if (dashboard) await announceDashboard(app, ctx, dashboard.url);
      if (opts.transport === 'http') {
        const handle = await serveHttp(() => createMcpServer(app, ctx.version), Number(opts.port));
        ctx.log.warn('MCP streamable HTTP on %s', handle.url);
        await untilSignal();
        await handle.close();
      } else {
        await Promise.race([serveStdio(createMcpServer(app, ctx.version)), untilSignal()]);
        // An open stdin would keep the process alive after a signal: the first Ctrl-C or SIGTERM must end it.
        process.stdin.destroy();
      }
    } finally {
      await dashboard?.close();
    }
  });
}
