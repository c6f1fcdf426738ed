/**
 * localagents in this process: createApp over a models.yaml in a temp dir,
 * and the MCP server on an in-memory transport with the official Client —
 * the e2e pattern without a child process, for parts that time service
 * calls rather than processes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createApp, type App } from '../../src/app.js';
import { silentLogger } from '../../src/log.js';
import { createMcpServer } from '../../src/mcp/server.js';

export interface InProcess {
  readonly app: App;
  readonly dir: string;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function startInProcess(configYaml: string, options: { stateDir?: string; claudeExecutable?: string } = {}): Promise<InProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'la-bench-app-'));
  const configPath = join(dir, 'models.yaml');
  writeFileSync(configPath, configYaml);
  const app = createApp({
    configPath,
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: dir },
    log: silentLogger,
    stateDir: options.stateDir ?? join(dir, 'state'),
    claudeExecutable: options.claudeExecutable,
  });
  const server = createMcpServer(app, '0.0.0-bench');
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return {
    app,
    dir,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult, // callTool's result is a CallToolResult for tools without task support
    async close() {
      await client.close();
      await server.close();
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
