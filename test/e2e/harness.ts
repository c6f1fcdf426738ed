/**
 * End-to-end harness: a throwaway repository, simulators, a models.yaml, a
 * private Claude Code config dir and state dir, and the built `localagents`
 * binary driven by the official MCP Client over stdio.
 */
import { mkdtempSync, writeFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { makeRepo } from '../helpers/git-repo.js';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
export const BIN = join(REPO_ROOT, 'dist', 'main.cjs');

export interface E2EDirs {
  readonly root: string;
  readonly repo: string;
  readonly config: string;
  readonly state: string;
  readonly claudeConfig: string;
}

export function makeDirs(): E2EDirs {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'la-e2e-')));
  return { root, repo: makeRepo(), config: join(root, 'models.yaml'), state: join(root, 'state'), claudeConfig: join(root, 'claude') };
}

export function writeConfig(dirs: E2EDirs, yaml: string): void {
  writeFileSync(dirs.config, yaml);
}

/** Environment for the server: nothing of the developer's own Claude Code setup leaks in. */
export function serverEnv(dirs: E2EDirs, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dirs.root,
    CLAUDE_CONFIG_DIR: dirs.claudeConfig,
    LOCALAGENTS_STATE_DIR: dirs.state,
    LOCALAGENTS_LOG: 'warn',
    ...extra,
  };
}

export interface Connected {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function connect(dirs: E2EDirs, extraEnv: Record<string, string> = {}, extraArgs: string[] = []): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '--config', dirs.config, ...extraArgs],
    cwd: dirs.repo,
    env: serverEnv(dirs, extraEnv),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(transport);
  // Like Claude Code, list the tools first: the client then checks every structuredContent against its output schema.
  await client.listTools();
  return {
    client,
    transport,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args }, undefined, { timeout: 180_000 })) as CallToolResult,
    close: () => client.close(),
  };
}

/** structuredContent of a result, asserting it is not an error. */
export function ok(result: CallToolResult): Record<string, unknown> {
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
  return result.structuredContent ?? {};
}
