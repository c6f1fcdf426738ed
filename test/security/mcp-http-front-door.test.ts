/**
 * Issue 11 class 1: MCP over HTTP has one front door. The built binary with
 * `--transport streamable-http` answers only a caller that holds the bearer
 * token (new per start, printed once to stderr, written 0600 in the state
 * dir), names this server in Host (a DNS-rebinding page sends its own) and
 * sends no cross-site Origin. The dashboard goes through the same guard.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard } from '../../src/dashboard/server.js';
import { silentLogger } from '../../src/log.js';
import { runCli, startCli, type Started } from '../cli/cli-process.js';
import { makeDirs, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { until } from '../helpers/processes.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { createApp } from '../../src/app.js';

interface Raw {
  readonly status: number;
  readonly headers: Record<string, unknown>;
  readonly text: string;
}

/** An HTTP request with exactly these headers (fetch would not let us send a hostile Host). */
function raw(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: u.port, path: `${u.pathname}${u.search}`, method, headers, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'attacker', version: '1' } },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** The JSON-RPC error message of a refusal. */
const errorText = (res: Raw): string => (JSON.parse(res.text) as { error: { message: string } }).error.message;

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);

describe('MCP over HTTP: the front door of the built binary', { timeout: 150_000 }, () => {
  let dirs: E2EDirs;
  let sim: Simulator;
  let server: Started;
  let url: string;
  let port: string;
  let token: string;

  const jobsMade = (): string[] => (existsSync(join(dirs.state, 'jobs')) ? readdirSync(join(dirs.state, 'jobs')) : []);

  beforeAll(async () => {
    dirs = makeDirs();
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true });
    writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
    server = startCli(['--config', dirs.config, '--transport', 'streamable-http', '--port', '0'], { cwd: dirs.repo, env: serverEnv(dirs) });
    expect(await until(() => /bearer token .*: (\S+)\n/.test(server.stderr()), 60_000)).toBe(true);
    url = /MCP streamable HTTP on (\S+)/.exec(server.stderr())![1]!;
    port = new URL(url).port;
    token = /bearer token .*: (\S+)\n/.exec(server.stderr())![1]!;
  }, 90_000);
  afterAll(async () => {
    server?.child.kill('SIGTERM');
    await server?.result;
    await sim?.close();
  });

  it('binds 127.0.0.1, prints a fresh 256-bit token once and writes it owner-only in the state dir', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(server.stderr().split(token)).toHaveLength(2); // printed exactly once; the `claude mcp add` line names the file instead
    const file = join(dirs.state, `mcp-http-${port}.token`);
    expect(readFileSync(file, 'utf8')).toBe(`${token}\n`);
    expect(mode(file)).toBe('600');
    expect(server.stderr()).toContain(`claude mcp add --transport http localagents ${url} --header "Authorization: Bearer $(cat ${file})"`);
  });

  it('the official MCP client with the token gets the tools and runs a job that writes in the repo', async () => {
    sim.setScript([{ toolUse: { name: 'Write', input: { file_path: join(dirs.repo, 'via-http.txt'), content: 'hello' } } }, { text: 'Wrote it.' }]);
    const client = new Client({ name: 'owner', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('run_agent');
      const result = (await client.callTool({ name: 'run_agent', arguments: { task: 'Write via-http.txt.', wait_s: 90 } }, undefined, { timeout: 120_000 })) as CallToolResult;
      expect(result.structuredContent).toMatchObject({ status: 'succeeded' });
      expect(readFileSync(join(dirs.repo, 'via-http.txt'), 'utf8')).toBe('hello');
    } finally {
      await client.close();
    }
  });

  it('the official MCP client without the token, or with a wrong one, cannot connect', async () => {
    for (const headers of [{}, { authorization: `Bearer ${token.slice(0, -1)}x` }] as Array<Record<string, string>>) {
      const client = new Client({ name: 'stranger', version: '1' });
      await expect(client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }))).rejects.toThrow(/401|unauthorized/i);
    }
  });

  it('answers 401 with WWW-Authenticate and no session to a missing, wrong or non-Bearer token', async () => {
    const before = jobsMade();
    for (const auth of [undefined, `Bearer ${'A'.repeat(token.length)}`, `Basic ${token}`, `Bearer ${token} extra`, token]) {
      const res = await raw(url, 'POST', { ...MCP_HEADERS, host: `127.0.0.1:${port}`, ...(auth ? { authorization: auth } : {}) }, INIT);
      expect([auth, res.status]).toEqual([auth, 401]);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.headers['mcp-session-id']).toBeUndefined();
      expect(errorText(res)).toContain(`the token is in ${join(dirs.state, `mcp-http-${port}.token`)}`);
    }
    expect(jobsMade()).toEqual(before);
  });

  it('refuses DNS rebinding: a Host that is not this server gets 403 even with the right token', async () => {
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1.evil.example:${port}`, `localhost:${Number(port) + 1}`, `user@127.0.0.1:${port}`, '']) {
      const res = await raw(url, 'POST', { ...MCP_HEADERS, host, authorization: `Bearer ${token}` }, INIT);
      expect([host, res.status]).toEqual([host, 403]);
      expect(errorText(res)).toContain(`is not this server (127.0.0.1:${port} or localhost:${port} or [::1]:${port})`);
    }
  });

  it('refuses a cross-site Origin with 403, even with the right token and Host', async () => {
    for (const origin of ['http://evil.example', `http://evil.example:${port}`, 'null', `https://127.0.0.1:${port}`, `http://localhost:${Number(port) + 1}`]) {
      const res = await raw(url, 'POST', { ...MCP_HEADERS, host: `127.0.0.1:${port}`, origin, authorization: `Bearer ${token}` }, INIT);
      expect([origin, res.status]).toEqual([origin, 403]);
      expect(errorText(res)).toContain('cross-site Origin');
    }
    const same = await raw(url, 'POST', { ...MCP_HEADERS, host: `localhost:${port}`, origin: `http://localhost:${port}`, authorization: `Bearer ${token}` }, INIT);
    expect(same.status).toBe(200);
  });

  it('a live session id does not let a hostile request through: tools/call with a rebinding Host or no token starts no job', async () => {
    const init = await raw(url, 'POST', { ...MCP_HEADERS, host: `127.0.0.1:${port}`, authorization: `Bearer ${token}` }, INIT);
    const session = String(init.headers['mcp-session-id']);
    expect(session).toMatch(/\S/);
    const before = jobsMade();
    const call = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'run_agent', arguments: { task: 'Write pwned.txt.' } } });
    const base = { ...MCP_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    expect((await raw(url, 'POST', { ...base, host: `evil.example:${port}`, authorization: `Bearer ${token}` }, call)).status).toBe(403);
    expect((await raw(url, 'POST', { ...base, host: `127.0.0.1:${port}` }, call)).status).toBe(401);
    expect((await raw(url, 'POST', { ...base, host: `127.0.0.1:${port}`, origin: 'http://evil.example', authorization: `Bearer ${token}` }, call)).status).toBe(403);
    expect(jobsMade()).toEqual(before);
  });

  it('refuses an oversized body with 413 before parsing it', async () => {
    const res = await raw(url, 'POST', { ...MCP_HEADERS, host: `127.0.0.1:${port}`, authorization: `Bearer ${token}` }, `{"x":"${'a'.repeat(5 * 1024 * 1024)}"}`);
    expect(res.status).toBe(413);
  });
});

describe('MCP over HTTP: choosing the token and the transport name', { timeout: 120_000 }, () => {
  let dirs: E2EDirs;

  beforeAll(() => {
    dirs = makeDirs();
    writeConfig(dirs, 'endpoints:\n  gpu:\n    base_url: http://127.0.0.1:9\n');
  });

  it('uses LOCALAGENTS_HTTP_TOKEN when given: never printed, never written, and it is the only key', async () => {
    const mine = 'my-own-token-0123456789-abcdefghijklmnop';
    const server = startCli(['--config', dirs.config, '--transport', 'http', '--port', '0'], { cwd: dirs.repo, env: serverEnv(dirs, { LOCALAGENTS_HTTP_TOKEN: mine }) });
    try {
      expect(await until(() => server.stderr().includes('MCP streamable HTTP on'), 60_000)).toBe(true);
      const url = /MCP streamable HTTP on (\S+)/.exec(server.stderr())![1]!;
      expect(server.stderr()).not.toContain(mine);
      expect(server.stderr()).toContain('bearer token from LOCALAGENTS_HTTP_TOKEN');
      expect(existsSync(join(dirs.state, `mcp-http-${new URL(url).port}.token`))).toBe(false);
      const client = new Client({ name: 'owner', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${mine}` } } }));
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
    } finally {
      server.child.kill('SIGTERM');
      await server.result;
    }
  });

  it('refuses a short LOCALAGENTS_HTTP_TOKEN before listening', async () => {
    const result = await runCli(['--config', dirs.config, '--transport', 'http', '--port', '0'], { cwd: dirs.repo, env: serverEnv(dirs, { LOCALAGENTS_HTTP_TOKEN: 'hunter2' }) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('LOCALAGENTS_HTTP_TOKEN has 7 characters; a bearer token needs at least 32');
  });

  it('--transport sse is refused with a message that names the replacement', async () => {
    const result = await runCli(['--config', dirs.config, '--transport', 'sse'], { cwd: dirs.repo, env: serverEnv(dirs) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--transport sse (the legacy HTTP+SSE MCP transport) is not served');
    expect(result.stderr).toContain('Use --transport streamable-http (or http)');
  });
});

describe('the dashboard goes through the same front door', () => {
  it('refuses a rebinding Host and a cross-site Origin, even with its token', async () => {
    const d = makeDirs();
    writeConfig(d, 'endpoints:\n  gpu:\n    base_url: http://127.0.0.1:9\n');
    const app = createApp({ configPath: d.config, cwd: d.repo, env: serverEnv(d), log: silentLogger, stateDir: d.state });
    const dash = await startDashboard(app, { log: silentLogger });
    try {
      const p = dash.address.port;
      const path = `http://127.0.0.1:${p}/api/jobs?token=${dash.token}`;
      expect((await raw(path, 'GET', { host: `127.0.0.1:${p}` })).status).toBe(200);
      expect((await raw(path, 'GET', { host: `evil.example:${p}` })).status).toBe(403);
      const crossSite = await raw(path, 'GET', { host: `127.0.0.1:${p}`, origin: 'http://evil.example' });
      expect(crossSite.status).toBe(403);
      expect(crossSite.text).toContain('cross-site Origin "http://evil.example"');
    } finally {
      await dash.close();
      await app.close();
    }
  });
});
