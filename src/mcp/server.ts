/**
 * The MCP server: tools over the app's services, and instructions that tell
 * the calling Claude the workflow. Transports are attached by cli/commands/serve.ts.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { App } from '../app.js';
import { SERVER_INSTRUCTIONS, SERVER_NAME } from './guidance.js';
import type { CallerPlace } from './caller-bytes.js';
import { registerTools } from './tools/index.js';
import { taskKey } from '../coord/task-key.js';
import { connectInner } from './tasks/inner-server.js';
import { createModernEndpoint, type ModernEndpoint } from './tasks/modern-endpoint.js';
import { createTaskBoard } from './tasks/task-board.js';
import { taskIds } from './tasks/task-ids.js';

/** `caller`: where the one caller runs (stdio); an HTTP server is shared, so it knows none. */
export function createMcpServer(app: App, version: string, caller: CallerPlace = {}): McpServer {
  const server = new McpServer({ name: SERVER_NAME, version }, { instructions: SERVER_INSTRUCTIONS });
  registerTools(server, app, caller);
  return server;
}

/** The 2026-07-28 side (server/discover, tasks), one per process: its own McpServer with the same tools. */
export async function createModernEndpointFor(app: App, version: string, caller: CallerPlace = {}): Promise<ModernEndpoint> {
  const inner = await connectInner(createMcpServer(app, version, caller), version);
  const jobs = { get: (id: string) => app.jobs.get(id), cancel: (id: string, by: string) => app.jobs.cancel(id, by), resolveJob: (ref: string) => app.resolveJob(ref) };
  const board = createTaskBoard(inner, jobs, taskIds(() => taskKey(app.stateDir)));
  return createModernEndpoint(inner, board, version);
}
