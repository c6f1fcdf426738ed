/**
 * Claude Code gives a stdio server 3 s from its start to answer the server/discover probe, and speaks 2025-11-25
 * (no tasks, so no background task at once) to one that answers later (docs/claude-code-wire.md §7); loading the
 * whole server takes longer than that on a busy machine. So the answer must not wait for it: it comes before the
 * MCP SDK loads (dist/main.cjs, as `claude mcp add` runs it; the SDK is bundled into one of its chunks) or before the server's bundle loads (the plugin's
 * start-mcp.mjs), and the same process then serves the session from the next message on.
 *
 * The order is read from one pipe that carries both stdout (the answer) and stderr (Node's NODE_DEBUG lines for
 * each module it loads): both are written synchronously to a pipe, so the pipe holds them in the order written.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, makeDirs, REPO_ROOT, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { until } from '../helpers/processes.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'claude-code', version: '2.1.332' },
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
};
/** What Claude Code writes as it starts a stdio server, then its first request once the probe is answered. */
const PROBE = { jsonrpc: '2.0', id: 'server-discover-probe-1', method: 'server/discover', params: { _meta: META } };
const TOOLS_LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } };

let dirs: E2EDirs;
beforeAll(() => {
  dirs = makeDirs();
  writeConfig(dirs, 'endpoints:\n  gpu:\n    base_url: http://127.0.0.1:9\n');
});
const children: Array<{ kill(): void }> = [];
afterAll(() => children.forEach((c) => c.kill()));

/** Starts `args` under node with stdout and stderr in one pipe, writes the probe, and reads lines until tools/list is answered. */
async function probeFirst(args: readonly string[], env: Record<string, string>): Promise<string[]> {
  const child = spawn('sh', ['-c', 'exec "$0" "$@" 2>&1', process.execPath, ...args], { cwd: dirs.repo, env: { ...serverEnv(dirs), NODE_DEBUG: 'module,esm', ...env } });
  children.push(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stdin.write(`${JSON.stringify(PROBE)}\n`);
  const lines = (): string[] => out.split('\n');
  // Sent once the probe is answered, as Claude Code does: the same process serves it, past the hold.
  expect(await until(() => response(lines(), PROBE.id).index >= 0, 30_000, 20), out.slice(-2000)).toBe(true);
  child.stdin.write(`${JSON.stringify(TOOLS_LIST)}\n`);
  expect(await until(() => response(lines(), TOOLS_LIST.id).index >= 0, 60_000, 50), out.slice(-2000)).toBe(true);
  child.stdin.end();
  return lines();
}

/** The chunks of dist/ that hold the MCP SDK's code: the bundler marks each bundled module with its path. */
function sdkChunks(): string[] {
  const dir = join(REPO_ROOT, 'dist', 'chunks');
  return readdirSync(dir).filter((name) => readFileSync(join(dir, name), 'utf8').includes('\n// node_modules/@modelcontextprotocol/sdk/'));
}

const indexOf = (lines: readonly string[], test: (line: string) => boolean): number => lines.findIndex(test);

/** The JSON-RPC response with this id among the lines (key order is the sender's). */
function response(lines: readonly string[], id: string | number): { index: number; message?: Record<string, unknown> } {
  for (const [index, line] of lines.entries()) {
    if (!line.startsWith('{')) continue;
    try {
      const message = JSON.parse(line) as Record<string, unknown>;
      if (message.id === id && 'result' in message) return { index, message };
    } catch {
      // a debug line that starts with a brace
    }
  }
  return { index: -1 };
}

function expectDiscoverAnswer(lines: readonly string[]): number {
  const discover = response(lines, PROBE.id);
  const answer = discover.message as { result: { supportedVersions: string[]; capabilities: { extensions: Record<string, unknown> } } };
  expect(answer.result.supportedVersions).toContain('2026-07-28');
  expect(answer.result.capabilities.extensions).toHaveProperty(['io.modelcontextprotocol/tasks']);
  const tools = response(lines, TOOLS_LIST.id).message as { result: { resultType: string; tools: Array<{ name: string }> } };
  expect(tools.result.resultType).toBe('complete');
  expect(tools.result.tools.map((t) => t.name)).toContain('run_agent');
  return discover.index;
}

describe('the stdio server answers server/discover before the rest of it loads', () => {
  it('dist/main.cjs: before it loads the MCP SDK, then serves the session', async () => {
    const lines = await probeFirst([BIN, '--config', dirs.config], {});
    const chunks = sdkChunks();
    expect(chunks.length).toBeGreaterThan(0);
    const sdk = indexOf(lines, (l) => chunks.some((name) => l.includes(`Module._load REQUEST ./${name} `) || l.includes(`Module._load REQUEST ./chunks/${name} `)));
    expect(sdk).toBeGreaterThan(0);
    expect(expectDiscoverAnswer(lines)).toBeLessThan(sdk);
  }, 90_000);

  it('the plugin (start-mcp.mjs): before it loads the server bundle, then serves the session', async () => {
    const lines = await probeFirst([join(REPO_ROOT, 'plugin', 'start-mcp.mjs')], { LOCALAGENTS_CONFIG: dirs.config });
    const bundle = indexOf(lines, (l) => l.startsWith('ESM') && l.includes('plugin/localagents.mjs'));
    expect(bundle).toBeGreaterThan(0);
    expect(expectDiscoverAnswer(lines)).toBeLessThan(bundle);
  }, 90_000);
});
