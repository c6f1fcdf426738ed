/**
 * MCP 2026-07-28 tasks over streamable HTTP (the built server, `--transport http`): each request a POST of
 * its own, no session. A task lives across requests; a task id made on stdio means nothing here; the
 * official 2025-11-25 client still gets its session.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../sim/index.js';
import { BIN, makeDirs, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { until } from '../helpers/processes.js';
import { modernHttp, modernStdio, type ModernClient } from './tasks-client.js';

const TOKEN = 'tasks-http-test-token-0123456789abcdef';
let dirs: E2EDirs;
let sim: Simulator;
let server: ChildProcess;
let url = '';

beforeAll(async () => {
  dirs = makeDirs();
  sim = await startSimulator({ flavor: 'llama.cpp', slots: 4, script: [{ text: 'Over HTTP.' }] });
  writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
  server = spawn(process.execPath, [BIN, 'mcp', '--config', dirs.config, '--transport', 'http', '--port', '0'], { cwd: dirs.repo, env: serverEnv(dirs, { LOCALAGENTS_HTTP_TOKEN: TOKEN }) });
  let stderr = '';
  server.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  expect(await until(() => /MCP streamable HTTP on (\S+)/.test(stderr), 30_000, 50), stderr).toBe(true);
  url = /MCP streamable HTTP on (\S+)/.exec(stderr)![1]!;
}, 60_000);
afterAll(async () => {
  server?.kill('SIGTERM');
  await sim?.close();
});

const jobOf = (taskId: unknown): string => String(taskId).split('.')[0]!;
const record = (jobId: string): { status: string } => JSON.parse(readFileSync(join(dirs.state, 'jobs', jobId, 'job.json'), 'utf8')) as { status: string };

async function terminal(c: ModernClient, taskId: unknown): Promise<Record<string, unknown> | undefined> {
  let last: Record<string, unknown> | undefined;
  await until(async () => {
    last = (await c.request('tasks/get', { taskId })).result;
    return last?.status !== 'working';
  }, 120_000, 200);
  return last;
}

describe('MCP tasks over HTTP (2026-07-28)', () => {
  it('serves discover and a task across separate POSTs, to its end', async () => {
    const c = modernHttp(url, TOKEN);
    expect((await c.request('server/discover')).result).toMatchObject({ supportedVersions: ['2026-07-28', '2025-11-25'] });
    const created = await c.request('tools/call', { name: 'run_agent', arguments: { task: 'Answer.' } });
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    const done = await terminal(c, created.result?.taskId);
    expect(done).toMatchObject({ status: 'completed' });
    expect((done?.result as { structuredContent: unknown }).structuredContent).toMatchObject({ id: jobOf(created.result?.taskId), status: 'succeeded', result: 'Over HTTP.' });
  }, 150_000);

  it('does not know a task made by the stdio client, nor let it be cancelled from here', async () => {
    const stdio = modernStdio(dirs);
    try {
      const taskId = (await stdio.request('tools/call', { name: 'run_agent', arguments: { task: 'Answer on stdio.' } })).result?.taskId;
      expect(typeof taskId).toBe('string');
      const http = modernHttp(url, TOKEN);
      expect((await http.request('tasks/get', { taskId })).error).toMatchObject({ code: -32602, message: 'Failed to retrieve task: Task not found' });
      expect((await http.request('tasks/cancel', { taskId })).error?.code).toBe(-32602);
      // Its own client still follows it to the end: the refusal cancelled nothing.
      expect(await terminal(stdio, taskId)).toMatchObject({ status: 'completed' });
      expect(record(jobOf(taskId)).status).toBe('succeeded');
    } finally {
      await stdio.close();
    }
  }, 150_000);

  it('refuses a 2026-07-28 request without the bearer token before reading it', async () => {
    const stranger = modernHttp(url, 'not-the-token-0123456789abcdef-0123');
    await expect(stranger.request('server/discover')).resolves.toMatchObject({ error: { code: -32001 } });
  });

  it('still gives the official 2025-11-25 client its session', async () => {
    const client = new Client({ name: 'legacy', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('run_agent');
    } finally {
      await client.close();
    }
  });
});
