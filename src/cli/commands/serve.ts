/**
 * `localagents` / `localagents mcp`: the MCP server, on stdio (what `claude mcp
 * add` launches) or streamable HTTP behind the front door, optionally with the
 * dashboard. A signal or the client going away closes the app, so running jobs
 * are recorded `interrupted` (resumable) instead of being left `running`.
 */
import type { App } from '../../app.js';
import { removeTokenFile, tokenFilePath, writeOwnerSecret, writeTokenFile } from '../../coord/front-door-tokens.js';
import { startDashboard } from '../../dashboard/server.js';
import { BadArgumentError } from '../../errors.js';
import { refuseInsideJob } from '../../jobs/claude/nested-job.js';
import { createMcpServer, createModernEndpointFor } from '../../mcp/server.js';
import type { ModernEndpoint } from '../../mcp/tasks/modern-endpoint.js';
import { serveHttp, serveStdio } from '../../mcp/transports.js';
import { isLoopbackAddress } from '../../net/front-door.js';
import { newToken } from '../../net/token.js';
import type { CliContext } from '../context.js';
import { withApp } from '../with-app.js';
import { HTTP_TOKEN_ENV, type ServeOptions } from './serve-options.js';

const MIN_TOKEN_CHARS = 32;

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
  await writeOwnerSecret(app.stateDir, 'dashboard-url', url);
}

function refuseSse(): never {
  // The HTTP+SSE transport was replaced by streamable HTTP in MCP 2025-03-26 and puts its session id in the URL.
  throw new BadArgumentError('--transport', '--transport sse (the legacy HTTP+SSE MCP transport) is not served', {
    hint: 'Use --transport streamable-http (or http), and `claude mcp add --transport http NAME http://127.0.0.1:PORT/mcp --header "Authorization: Bearer TOKEN"`.',
  });
}

/** The user's token from the environment, or a new one per start; refuses a short one. */
function httpToken(ctx: CliContext): { token: string; given: boolean } {
  const given = ctx.env[HTTP_TOKEN_ENV];
  if (given === undefined || given === '') return { token: newToken(), given: false };
  if (given.length < MIN_TOKEN_CHARS) {
    throw new BadArgumentError(HTTP_TOKEN_ENV, `${HTTP_TOKEN_ENV} has ${given.length} characters; a bearer token needs at least ${MIN_TOKEN_CHARS}`, {
      hint: `Leave it unset and localagents makes one per start, or use e.g. $(openssl rand -base64 32).`,
    });
  }
  return { token: given, given: true };
}

async function serveOverHttp(app: App, ctx: CliContext, opts: ServeOptions, modern: ModernEndpoint): Promise<void> {
  const { token, given } = httpToken(ctx);
  const tokenHint = (port: number): string =>
    given ? `Send Authorization: Bearer <the value of ${HTTP_TOKEN_ENV}>.` : `Send Authorization: Bearer <token>; the token is in ${tokenFilePath(app.stateDir, port)}.`;
  const handle = await serveHttp(() => createMcpServer(app, ctx.version), { port: Number(opts.port), host: opts.host, token, tokenHint, allowedHosts: opts.allowedHost, modern });
  const port = Number(new URL(handle.url).port);
  try {
    if (!isLoopbackAddress(opts.host)) {
      ctx.log.warn('MCP HTTP listens on %s, reachable from other machines: every request needs the bearer token, and the token travels unencrypted (put TLS in front).', opts.host);
    }
    if (given) {
      ctx.log.warn('MCP streamable HTTP on %s (answers %s; bearer token from %s)', handle.url, handle.door.describe(), HTTP_TOKEN_ENV);
    } else {
      const written = await writeTokenFile(app.stateDir, port, token);
      ctx.log.warn('MCP streamable HTTP on %s (answers %s)', handle.url, handle.door.describe());
      ctx.log.warn('bearer token (new each start, also in %s): %s', written, token);
      ctx.log.warn('add it: claude mcp add --transport http localagents %s --header "Authorization: Bearer $(cat %s)"', handle.url, written);
    }
    await untilSignal();
  } finally {
    await handle.close();
    if (!given) await removeTokenFile(app.stateDir, port);
  }
}

export async function serve(ctx: CliContext, opts: ServeOptions): Promise<void> {
  refuseInsideJob(ctx.env, 'the localagents MCP server');
  if (opts.transport === 'sse') refuseSse();
  await withApp(ctx, opts.config, async (app) => {
    const dashboard = opts.dashboard ? await startDashboard(app, { port: Number(opts.dashboardPort ?? 0), log: ctx.log }) : undefined;
    const overHttp = opts.transport === 'http' || opts.transport === 'streamable-http';
    // Claude Code starts a stdio server in its own cwd (which names its transcript folder), and may say its session;
    // an HTTP server is shared, so it knows no one caller.
    const caller = overHttp ? {} : { cwd: ctx.cwd, session: ctx.env.CLAUDE_CODE_SESSION_ID };
    // MCP 2026-07-28 beside 2025-11-25: server/discover, and run_agent/wait_job as tasks (src/mcp/tasks/).
    const modern = await createModernEndpointFor(app, ctx.version, caller);
    try {
      if (dashboard) await announceDashboard(app, ctx, dashboard.url);
      if (overHttp) await serveOverHttp(app, ctx, opts, modern);
      else {
        await Promise.race([serveStdio(createMcpServer(app, ctx.version, caller), modern), untilSignal()]);
        // An open stdin would keep the process alive after a signal: the first Ctrl-C or SIGTERM must end it.
        process.stdin.destroy();
      }
    } finally {
      await modern.close();
      await dashboard?.close();
    }
  });
}
