/**
 * Issue #11 class 8: a job's shim token opens the Messages API and token
 * counting, nothing else of the backend; a redirect from a backend is never
 * handed to Claude Code (which would follow it, past the shim and its log) nor
 * followed by us: it becomes a clear error naming where it pointed, in the
 * shim, the probes and local_complete.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { nullRequestLog } from '../../src/shim/request-log/request-log.js';
import { createShimServer, type ShimServer } from '../../src/shim/server.js';
import { claudeEnv, runClaudeP } from '../e2e/claude-cli.js';
import { connect, makeDirs, writeConfig, type Connected } from '../e2e/harness.js';
import { makeRepo } from '../helpers/git-repo.js';
import { json, startHostileServer, type HostileServer } from './hostile-server.js';

const KEY = 'sk-route-scope-0123456789abcdef';
const MODELS = { object: 'list', data: [{ id: 'qwen-test', meta: { n_ctx: 131072 } }] };
const ANSWER = { id: 'msg_1', type: 'message', role: 'assistant', model: 'qwen-test', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', usage: { input_tokens: 3, output_tokens: 1 } };

describe('the shim forwards only what Claude Code uses, and never a redirect', () => {
  let backend: HostileServer;
  let elsewhere: HostileServer;
  let shim: ShimServer;
  let baseUrl: string;

  beforeAll(async () => {
    backend = await startHostileServer();
    elsewhere = await startHostileServer();
    shim = createShimServer(silentLogger);
    const route = await shim.open({
      jobId: 'j',
      endpoint: { name: 'gpu', base_url: backend.url, backend: 'llama.cpp', apiKey: KEY } as never,
      servedModel: 'qwen-test',
      context: undefined,
      log: nullRequestLog,
    });
    baseUrl = route.baseUrl;
  });
  afterAll(async () => {
    await shim?.close();
    await backend?.close();
    await elsewhere?.close();
  });

  it('a job token opens no other backend path: 404 from the shim, nothing reaches the backend', async () => {
    backend.reset();
    for (const route of ['GET /props', 'POST /props', 'POST /slots/0', 'GET /slots', 'GET /metrics', 'GET /v1/models', 'POST /completion', 'POST /v1/chat/completions']) {
      backend.on(route, (_req, res) => json(res, 200, { leaked: true }));
    }
    const tries: Array<[string, string]> = [
      ['POST', '/slots/0?action=erase'],
      ['POST', '/props'],
      ['GET', '/props'],
      ['GET', '/slots'],
      ['GET', '/metrics'],
      ['GET', '/v1/models'],
      ['POST', '/completion'],
      ['POST', '/v1/chat/completions'],
      ['GET', '/v1/messages'],
      ['POST', '/v1/messages/../../props'],
      ['POST', '/v1/messagesX'],
      ['HEAD', '/api/hello'],
    ];
    for (const [method, path] of tries) {
      const res = await fetch(`${baseUrl}${path}`, { method, headers: { 'content-type': 'application/json' }, body: method === 'POST' ? '{}' : undefined });
      expect([method, path, res.status]).toEqual([method, path, 404]);
      const text = await res.text();
      if (method !== 'HEAD') expect(text).toContain('forwards only POST /v1/messages and POST /v1/messages/count_tokens');
    }
    expect(backend.seen).toEqual([]);
  });

  it('the two routes Claude Code uses still go through, with the endpoint key attached', async () => {
    backend.reset();
    backend.on('POST /v1/messages', (_req, res) => json(res, 200, ANSWER));
    backend.on('POST /v1/messages/count_tokens', (_req, res) => json(res, 200, { input_tokens: 3 }));
    const body = JSON.stringify({ model: 'x', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
    for (const path of ['/v1/messages?beta=true', '/v1/messages/count_tokens?beta=true']) {
      const res = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect([path, res.status]).toEqual([path, 200]);
    }
    expect(backend.seen.map((r) => `${r.method} ${r.url} ${String(r.headers.authorization)}`)).toEqual([
      `POST /v1/messages?beta=true Bearer ${KEY}`,
      `POST /v1/messages/count_tokens?beta=true Bearer ${KEY}`,
    ]);
  });

  it('a backend 307 is not handed on: 502 naming the redirect target, no Location', async () => {
    backend.reset();
    backend.on('POST /v1/messages', (_req, res) => {
      res.writeHead(307, { location: `${elsewhere.url}/v1/messages?session=abc` });
      res.end();
    });
    const res = await fetch(`${baseUrl}/v1/messages?beta=true`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'x', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(502);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('x-should-retry')).toBe('false');
    const error = ((await res.json()) as { error: { message: string } }).error.message;
    expect(error).toContain(`answered HTTP 307, a redirect to ${elsewhere.url};`);
    expect(error).toContain('never follows');
    expect(error).not.toContain('session=abc');
  });

  it('real Claude Code behind a redirecting backend: the conversation never reaches the other host, and the error says why', async () => {
    backend.reset();
    elsewhere.reset();
    backend.on('POST /v1/messages', (_req, res) => {
      res.writeHead(307, { location: `${elsewhere.url}/v1/messages` });
      res.end();
    });
    elsewhere.on('POST /v1/messages', (_req, res) => json(res, 200, ANSWER));
    const home = mkdtempSync(join(tmpdir(), 'la-redir-'));
    const run = await runClaudeP('Say hi.', makeRepo(), claudeEnv(baseUrl, home, join(home, 'c'), 'qwen-test', { CLAUDE_CODE_MAX_RETRIES: '0' }));
    expect(elsewhere.seen).toEqual([]);
    expect(backend.seen.length).toBeGreaterThan(0);
    expect(run.result?.is_error).toBe(true);
    expect(run.result?.result).toContain('a redirect to');
  });
});

describe('probes and local_complete name a redirect instead of following it (the built binary over stdio)', () => {
  let backend: HostileServer;
  let elsewhere: HostileServer;
  let server: Connected;

  beforeAll(async () => {
    backend = await startHostileServer();
    elsewhere = await startHostileServer();
    const dirs = makeDirs();
    writeConfig(dirs, `endpoints:\n  gated:\n    base_url: ${backend.url}\n    api_key: ${KEY}\ndefaults:\n  probe_timeout_s: 5\n`);
    server = await connect(dirs);
  });
  afterAll(async () => {
    await server?.close();
    await backend?.close();
    await elsewhere?.close();
  });

  it('a 302 to a login page on /v1/models: the endpoint reason names the redirect, the login host gets nothing', async () => {
    backend.on('GET /v1/models', (_req, res) => {
      res.writeHead(302, { location: `${elsewhere.url}/login?next=%2Fv1%2Fmodels` });
      res.end();
    });
    elsewhere.on('GET /login', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>Sign in</html>');
    });
    const result = await server.call('list_models', {});
    const endpoint = (result.structuredContent as { endpoints: Array<{ endpoint: string; state: string; reason: string }> }).endpoints.find((e) => e.endpoint === 'gated');
    expect(endpoint?.state).toBe('error');
    expect(endpoint?.reason).toContain(`GET ${backend.url}/v1/models answered HTTP 302, a redirect to ${elsewhere.url}; localagents never follows`);
    expect(elsewhere.seen).toEqual([]);
  });

  it('local_complete behind a 307: a clear error naming the redirect, the other host gets nothing', async () => {
    backend.on('GET /v1/models', (_req, res) => json(res, 200, MODELS));
    backend.on('POST /v1/messages', (_req, res) => {
      res.writeHead(307, { location: `${elsewhere.url}/v1/messages` });
      res.end();
    });
    const result = await server.call('local_complete', { prompt: 'hi', model: 'qwen-test' });
    expect(result.isError).toBe(true);
    const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    expect(text).toContain(`answered HTTP 307, a redirect to ${elsewhere.url}`);
    expect(elsewhere.seen).toEqual([]);
  });
});
