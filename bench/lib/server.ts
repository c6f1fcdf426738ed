/**
 * The built localagents server (dist/main.cjs) as Claude Code runs it: a child
 * process spoken to by the official MCP Client over stdio, with a throwaway
 * repository, models.yaml, state dir and Claude Code config dir. Reuses the
 * e2e harness's directories and environment.
 */
import { existsSync, rmSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BIN, serverEnv, type E2EDirs } from '../../test/e2e/harness.js';

export interface BenchServer {
  readonly pid: number;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export function requireBuild(): void {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run npm run build first (npm run bench does)`);
}

/** Starts dist/main.cjs; `nodeFlags` go before the script (e.g. --cpu-prof). */
export async function startServer(dirs: E2EDirs, nodeFlags: readonly string[] = []): Promise<BenchServer> {
  requireBuild();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...nodeFlags, BIN, '--config', dirs.config],
    cwd: dirs.repo,
    env: serverEnv(dirs),
    stderr: 'inherit',
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  // A loaded machine can take more than the SDK's 60 s default to start a server; a benchmark should wait, not abort.
  await client.connect(transport, { timeout: 600_000 });
  const pid = transport.pid;
  if (pid === null) throw new Error('the server process has no pid');
  return {
    pid,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 })) as CallToolResult, // callTool's result is a CallToolResult for tools without task support
    close: () => client.close(),
  };
}

/** structuredContent of a tool result; throws on an error result. */
export function structured(result: CallToolResult): Record<string, unknown> {
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
  return result.structuredContent ?? {};
}

/** Removes what makeDirs() created (the state dir and Claude Code config sit under root). */
export function removeDirs(dirs: E2EDirs): void {
  for (const d of [dirs.root, dirs.repo]) rmSync(d, { recursive: true, force: true });
}
