/**
 * In-process harness for the reliability, security and bad-input suites: the
 * real app (createApp) behind the real MCP server, driven by the official MCP
 * Client over an in-memory transport pair. Sessions are the real Claude Code
 * binary; the backend is the simulator or a stub. Every log line is kept so a
 * test can search it.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createApp, type App } from '../../src/app.js';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { createLogger } from '../../src/log.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { ERROR_META_KEY, type ToolErrorMeta } from '../../src/mcp/tool-result.js';
import type { OnTestFinishedHandler } from 'vitest';
import { makeRepo } from '../helpers/git-repo.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../sim/index.js';

export interface Dirs {
  readonly root: string;
  readonly repo: string;
  readonly config: string;
  readonly state: string;
  readonly claudeConfig: string;
}

export function makeDirs(prefix = 'la-rel-'): Dirs {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const claudeConfig = join(root, 'claude');
  mkdirSync(claudeConfig);
  return { root, repo: makeRepo(), config: join(root, 'models.yaml'), state: join(root, 'state'), claudeConfig };
}

/** The environment the server starts with: nothing of the developer's own setup leaks in. */
export function baseEnv(dirs: Dirs, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dirs.root, CLAUDE_CONFIG_DIR: dirs.claudeConfig, ...extra };
}

/** One endpoint `gpu` with few, fast Claude Code retries, so a fault test ends in seconds. */
export function endpointYaml(url: string, opts: { retries?: number; extra?: string; defaults?: string; name?: string } = {}): string {
  const lines = [
    'endpoints:',
    `  ${opts.name ?? 'gpu'}:`,
    `    base_url: ${url}`,
    '    env:',
    `      CLAUDE_CODE_MAX_RETRIES: "${opts.retries ?? 3}"`,
  ];
  if (opts.extra) lines.push(opts.extra);
  if (opts.defaults) lines.push('defaults:', opts.defaults);
  return `${lines.join('\n')}\n`;
}

export interface InProcess {
  readonly dirs: Dirs;
  readonly app: App;
  readonly client: Client;
  /** Every line the server logged. */
  readonly logLines: string[];
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export interface StartOptions {
  readonly yaml: string;
  readonly dirs?: Dirs;
  readonly env?: Record<string, string>;
  readonly stateDir?: string;
  /** Run this instead of the bundled Claude Code (a fake that crashes). */
  readonly claudeExecutable?: string;
}

export async function startInProcess(options: StartOptions): Promise<InProcess> {
  const dirs = options.dirs ?? makeDirs();
  writeFileSync(dirs.config, options.yaml);
  const logLines: string[] = [];
  const app = createApp({
    configPath: dirs.config,
    cwd: dirs.repo,
    env: baseEnv(dirs, options.env),
    log: createLogger('debug', (line) => logLines.push(line)),
    stateDir: options.stateDir ?? dirs.state,
    claudeExecutable: options.claudeExecutable,
  });
  const server = createMcpServer(app, '0.0.0-test');
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'reliability', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    dirs,
    app,
    client,
    logLines,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args }, undefined, { timeout: 170_000 })) as CallToolResult,
    async close() {
      await client.close();
      await server.close();
      await app.close();
    },
  };
}

/**
 * A simulator and a localagents MCP server on it, both closed when the test that asked for them ends (`finished`:
 * that test's own onTestFinished, so tests that run at once each close only what they started).
 */
export async function serverOnSimulator(
  simulator: SimulatorOptions,
  finished: (handler: OnTestFinishedHandler) => void,
  yaml: Parameters<typeof endpointYaml>[1] = {},
): Promise<{ sim: Simulator; h: InProcess }> {
  const sim = await startSimulator(simulator);
  finished(() => sim.close());
  const h = await startInProcess({ yaml: endpointYaml(sim.url, yaml) });
  finished(() => h.close());
  return { sim, h };
}

/** structuredContent of a result, failing loudly on an error result. */
export function ok(result: CallToolResult): Record<string, unknown> {
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
  return result.structuredContent ?? {};
}

/** The error a tool answered with (code, message, hint, details), failing loudly on a success. */
export function errorOf(result: CallToolResult): ToolErrorMeta {
  if (!result.isError) throw new Error(`expected an error result, got: ${JSON.stringify(result.structuredContent ?? result.content)}`);
  const meta = result._meta?.[ERROR_META_KEY];
  // Input-validation failures come from the SDK itself, with text only.
  if (meta === undefined) return { code: 'bad_argument', message: textOf(result) };
  return meta as ToolErrorMeta; // written by errorResult() in src/mcp/tool-result.ts
}

/** The one text block of a result. */
export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

export function readRecord(dirs: Dirs, id: string): JobRecord {
  return JSON.parse(readFileSync(join(dirs.state, 'jobs', id, 'job.json'), 'utf8')) as JobRecord;
}

export { processAlive, processCommandLines, until } from '../helpers/processes.js';

/** Lines of a job's requests.jsonl. */
export function requestLines(dirs: Dirs, id: string): Array<Record<string, unknown>> {
  let text: string;
  try {
    text = readFileSync(join(dirs.state, 'jobs', id, 'requests.jsonl'), 'utf8');
  } catch {
    return []; // no request was made yet
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
