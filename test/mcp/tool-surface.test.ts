/**
 * What the caller's model reads of localagents on every request: each tool's name (as Claude Code prefixes it),
 * description and input schema, from the real tools/list over the official MCP Client. Claude Code forwards
 * exactly these three to the API (test/caller/delegation.e2e.test.ts measures the forwarded bytes too).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { silentLogger } from '../../src/log.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { makeRepo } from '../helpers/git-repo.js';

/** The budget of issue 37: every request of the caller carries these bytes. */
const SURFACE_BUDGET = 6000;

describe('the tool surface the caller reads', () => {
  let app: App;
  let client: Client;

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'la-surface-'));
    writeFileSync(join(root, 'models.yaml'), 'endpoints: {}\n');
    app = createApp({ configPath: join(root, 'models.yaml'), cwd: makeRepo(), env: { PATH: process.env.PATH, HOME: root }, log: silentLogger, stateDir: join(root, 'state') });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(app, 'test').connect(serverSide);
    client = new Client({ name: 'surface', version: '1' });
    await client.connect(clientSide);
  });
  afterAll(async () => {
    await client?.close();
    await app?.close();
  });

  it(`is at most ${SURFACE_BUDGET} bytes: names, descriptions and input schemas as the caller's API request carries them`, async () => {
    const { tools } = await client.listTools();
    const forwarded = tools.map((t) => ({ name: `mcp__localagents__${t.name}`, description: t.description, input_schema: t.inputSchema }));
    const bytes = Buffer.byteLength(JSON.stringify(forwarded), 'utf8');
    expect(bytes).toBeLessThanOrEqual(SURFACE_BUDGET);
    // Every capability of the README's tool table is still reachable (folded tools take their arguments).
    const args = new Map(tools.map((t) => [t.name, Object.keys(t.inputSchema.properties ?? {})]));
    expect(args.get('run_agent')).toEqual(expect.arrayContaining(['task', 'wait_s', 'resume_job', 'verify', 'isolation', 'sandbox']));
    expect(args.get('wait_job')).toEqual(['job_id', 'timeout_s']);
    expect(args.get('jobs')).toEqual(['job_id', 'tail_lines', 'include_finished', 'limit']);
    expect(args.get('list_models')).toEqual(['model']);
  });

  it('advertises no "or null" and no size limits, and still refuses what breaks them', async () => {
    const { tools } = await client.listTools();
    const text = JSON.stringify(tools.map((t) => t.inputSchema));
    expect(text).not.toContain('"null"');
    expect(text).not.toContain('maxLength');
    const huge = await client.callTool({ name: 'run_agent', arguments: { task: 'x', system_prompt_append: 'y'.repeat(100_001) } });
    expect(huge.isError).toBe(true);
    expect(JSON.stringify(huge.content)).toContain('system_prompt_append');
    // null still means "not given", as the original's callers send it.
    const listed = await client.callTool({ name: 'jobs', arguments: { job_id: null, limit: null } });
    expect(listed.isError).toBeFalsy();
  });
});
