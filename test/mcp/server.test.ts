/**
 * The MCP surface as the calling Claude sees it, through the official Client:
 * tools with schemas and annotations, instructions, argument errors that name
 * the argument and the allowed values, and the HTTP transport on loopback.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { silentLogger } from '../../src/log.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { serveHttp } from '../../src/mcp/transports.js';
import { makeRepo } from '../helpers/git-repo.js';
import { toolError } from '../helpers/tool-error.js';
import { makeRecord, seedJob } from '../dashboard/fixtures.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';

const cleanups = cleanupsAfterEach();

function makeApp(yaml = 'endpoints: {}\n'): { app: App; root: string; repo: string } {
  const root = mkdtempSync(join(tmpdir(), 'la-mcp-'));
  writeFileSync(join(root, 'models.yaml'), yaml);
  const repo = makeRepo();
  const app = createApp({ configPath: join(root, 'models.yaml'), cwd: repo, env: { PATH: process.env.PATH, HOME: root }, log: silentLogger, stateDir: join(root, 'state') });
  cleanups.push(() => app.close());
  return { app, root, repo };
}

async function connected(app: App): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createMcpServer(app, 'test');
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  cleanups.push(() => client.close());
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

const text = (r: CallToolResult): string => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('MCP server', () => {
  it('lists the eight tools, each with an output schema and read-only/destructive annotations, and explains the workflow', async () => {
    const client = await connected(makeApp().app);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'list_models', 'run_agent', 'wait_job', 'jobs', 'cancel_job', 'register_endpoint', 'register_model', 'local_complete',
    ]);
    for (const tool of tools) {
      expect(tool.outputSchema, tool.name).toBeDefined();
      expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe('boolean');
      expect(typeof tool.annotations?.destructiveHint, tool.name).toBe('boolean');
      expect(tool.description?.length, tool.name).toBeGreaterThan(60);
    }
    expect(tools.find((t) => t.name === 'run_agent')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(tools.find((t) => t.name === 'list_models')?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(client.getInstructions()).toContain('list_models → say which served model you will use → run_agent (returns when the job has finished) → review');
  });

  it('names the argument and the allowed values when an argument is out of range', async () => {
    const client = await connected(makeApp().app);
    const bad = await call(client, 'run_agent', { wait_s: 0, task: 'x', isolation: 'container' });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('isolation');
    expect(text(bad)).toContain('"none"|"worktree"');
    const wait = await call(client, 'wait_job', { job_id: '20261129-111500-abcdefghjkmn', timeout_s: -1 });
    expect(wait.isError).toBe(true);
    expect(text(wait)).toMatch(/>=0 at timeout_s$/);
  });

  it('refuses job ids that are paths, with a structured bad_argument', async () => {
    const client = await connected(makeApp().app);
    for (const id of ['../../etc', 'a/b', '..']) {
      const r = await call(client, 'jobs', { job_id: id });
      expect(r.isError).toBe(true);
      expect(toolError(r)).toMatchObject({ code: 'bad_argument', argument: 'job_id' });
      expect(text(r)).toContain(`job_id "${id}" is not a job id`);
    }
    const unknown = await call(client, 'jobs', { job_id: '20261129-111500-abcdefghjkmn' });
    expect(toolError(unknown)).toMatchObject({ code: 'unknown_job', job_id: '20261129-111500-abcdefghjkmn' });
  });

  it('takes a unique prefix of a job id or of its last part, and last, in every tool that takes a job; says which when it is not one job', async () => {
    const { app } = makeApp();
    const ids = ['20261129-111500-7gk2mq4xrz9d', '20261129-111501-7gzzzzzzzzzz', '20261130-090000-abcdefghjkmn'];
    for (const id of ids) await seedJob(app.store, makeRecord({ id, created: new Date(`${id.slice(0, 4)}-${id.slice(4, 6)}-${id.slice(6, 8)}T12:00:00Z`) }));
    const client = await connected(app);
    // A job's record says `id`; job_log's result `job_id`.
    const jobOf = (r: CallToolResult): unknown => {
      const structured = r.structuredContent as { id?: string; job_id?: string } | undefined;
      return structured?.id ?? structured?.job_id;
    };

    expect(jobOf(await call(client, 'jobs', { job_id: 'last' }))).toBe(ids[2]);
    expect(jobOf(await call(client, 'jobs', { job_id: '7gk2' }))).toBe(ids[0]);
    expect(jobOf(await call(client, 'wait_job', { job_id: 'abc', timeout_s: 0 }))).toBe(ids[2]);
    expect(jobOf(await call(client, 'jobs', { job_id: '20261129-111501', tail_lines: 60 }))).toBe(ids[1]);
    expect(jobOf(await call(client, 'cancel_job', { job_id: '7gz' }))).toBe(ids[1]);

    for (const [tool, args, argument] of [
      ['jobs', { job_id: '7g' }, 'job_id'],
      ['jobs', { job_id: '20261129', tail_lines: 60 }, 'job_id'],
      ['run_agent', { wait_s: 0, task: 'go on', resume_job: '7g' }, 'resume_job'],
    ] as const) {
      const r = await call(client, tool, args);
      expect(toolError(r), tool).toMatchObject({ code: 'bad_argument', argument });
      expect(text(r), tool).toContain(`matches 2 jobs (${ids[0]}, ${ids[1]}); type more of the id`);
      expect(text(r), tool).toContain('jobs() lists the jobs on record');
    }
    const typo = await call(client, 'wait_job', { job_id: '7gk3', timeout_s: 0 });
    expect(toolError(typo)).toMatchObject({ code: 'unknown_job', job_id: '7gk3' });
    expect(text(typo)).toContain(`no job id starts with "7gk3"; did you mean ${ids[0]}?`);
    const fullTypo = await call(client, 'cancel_job', { job_id: '20261130-090000-abcdefghjkmm' });
    expect(text(fullTypo)).toContain(`no job 20261130-090000-abcdefghjkmm on record; did you mean ${ids[2]}?`);
    expect((await app.jobs.list(true)).records.map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });

  it('rejects a cwd that does not exist, bypassPermissions, and an unknown endpoint, before any job exists', async () => {
    const { app, root } = makeApp();
    const client = await connected(app);
    const cwd = await call(client, 'run_agent', { wait_s: 0, task: 'x', cwd: join(root, 'nope') });
    expect(toolError(cwd)).toMatchObject({ code: 'bad_argument', argument: 'cwd' });
    expect(text(cwd)).toBe(`bad_argument: cwd "${join(root, 'nope')}" does not exist\nhint: Pass an existing directory (an absolute path).\ndetails: {"argument":"cwd"}`);
    const bypass = await call(client, 'run_agent', { wait_s: 0, task: 'x', permission_mode: 'bypassPermissions' });
    expect(toolError(bypass)).toMatchObject({ code: 'bad_argument', argument: 'permission_mode', allowed: ['default', 'acceptEdits', 'plan', 'dontAsk'] });
    expect(text(bypass)).toContain('defaults.allow_bypass_permissions');
    const endpoint = await call(client, 'run_agent', { wait_s: 0, task: 'x', endpoint: 'gpu9' });
    expect(toolError(endpoint)).toMatchObject({ code: 'bad_argument', argument: 'endpoint' });
    expect((await app.jobs.list(true)).records.length).toBe(0);
  });

  it('serves streamable HTTP on 127.0.0.1 only', async () => {
    const { app } = makeApp();
    const token = 'test-token-0123456789abcdef0123456789';
    const handle = await serveHttp(() => createMcpServer(app, 'test'), { port: 0, host: '127.0.0.1', token, tokenHint: () => '' });
    cleanups.push(() => handle.close());
    expect(handle.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = new Client({ name: 'http-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(handle.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    cleanups.push(() => client.close());
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(8);
    const listed = await call(client, 'list_models', {});
    expect(listed.isError).toBeFalsy();
  });
});
