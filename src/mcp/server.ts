/**
 * The MCP server: tools over the app's services, and instructions that tell
 * the calling Claude the workflow. Transports are attached by cli/commands/serve.ts.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { App } from '../app.js';
import { WORKFLOW_GUIDANCE } from './guidance.js';
import type { CallerPlace } from './caller-bytes.js';
import { registerTools } from './tools/index.js';
import { taskKey } from '../coord/task-key.js';
import { connectInner } from './tasks/inner-server.js';
import { createModernEndpoint, type ModernEndpoint } from './tasks/modern-endpoint.js';
import { createTaskBoard } from './tasks/task-board.js';
import { taskIds } from './tasks/task-ids.js';

export const SERVER_INSTRUCTIONS = [
  'localagents runs delegated Claude Code sessions on the user\'s own GPU servers (llama.cpp or vLLM).',
  'Workflow: list_models → say which served model you will use → run_agent (returns when the job has finished) → review.',
  WORKFLOW_GUIDANCE,
  'Good delegations are well specified and verifiable: tests, CLI flags, refactors with a pinned interface, independent halves in parallel worktrees (isolation: "worktree").',
  'If a model is not running, relay the model_unavailable message (request_model gives the same one without starting a job) to the user: localagents never starts models.',
].join('\n');

/** `caller`: where the one caller runs (stdio); an HTTP server is shared, so it knows none. */
export function createMcpServer(app: App, version: string, caller: CallerPlace = {}): McpServer {
  const server = new McpServer({ name: 'localagents', version }, { instructions: SERVER_INSTRUCTIONS });
  registerTools(server, app, caller);
  return server;
}

/** The 2026-07-28 side (server/discover, tasks), one per process: its own McpServer with the same tools. */
export async function createModernEndpointFor(app: App, version: string, caller: CallerPlace = {}): Promise<ModernEndpoint> {
  const inner = await connectInner(createMcpServer(app, version, caller), version);
  const jobs = { get: (id: string) => app.jobs.get(id), cancel: (id: string, by: string) => app.jobs.cancel(id, by), resolveJob: (ref: string) => app.resolveJob(ref) };
  const board = createTaskBoard(inner, jobs, taskIds(() => taskKey(app.stateDir)));
  return createModernEndpoint(inner, board, { name: 'localagents', version, instructions: SERVER_INSTRUCTIONS });
}
