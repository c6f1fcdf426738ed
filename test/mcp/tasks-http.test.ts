/**
 * MCP 2026-07-28 tasks over streamable HTTP (the built server, `--transport http`): each request a POST of
 * its own, no session. A task lives across requests; a task id made on stdio means nothing here; the
 * official 2025-11-25 client still gets its session. A blocking call streams its progress before its answer.
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
import { meta, modernHttp, modernStdio, type ModernClient } from './tasks-client.js';

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

  it('streams the progress of a blocking call (no task asked, as print mode) before its answer, on one event stream', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    sim.setScript(async () => {
      await gate;
      return { text: 'Held, then done.' };
    });
    const events: Array<{ method?: string; params?: { message?: string }; result?: { structuredContent?: { status?: string } } }> = [];
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'run_agent', arguments: { task: 'Wait for the gate.' }, _meta: { ...meta(false), progressToken: 'p7' } } }),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    let text = '';
    for await (const chunk of response.body!) {
      text += Buffer.from(chunk).toString('utf8');
      const blocks = text.split('\n\n');
      text = blocks.pop()!;
      for (const block of blocks) events.push(JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as (typeof events)[number]);
      // The job is held until its progress has reached us: the progress comes while it runs, not with the answer.
      if (events.some((e) => e.method === 'notifications/progress')) release();
    }
    const progress = events.filter((e) => e.method === 'notifications/progress');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]!.params).toMatchObject({ progressToken: 'p7' });
    expect(progress[0]!.params?.message).toMatch(/: running/);
    expect(events.at(-1)).toMatchObject({ id: 7, result: { resultType: 'complete', structuredContent: { status: 'succeeded', result: 'Held, then done.' } } });
    sim.setScript([{ text: 'Over HTTP.' }]);
  }, 150_000);

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
