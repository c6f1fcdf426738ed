/**
 * Issue 29, finding 1 and its class: every request target the dashboard and
 * MCP over HTTP parse. Each malformed one, sent byte for byte to the real
 * dashboard server and to the built binary's streamable HTTP server, gets a
 * 4xx that says what was wrong and what to do; never a 500, never
 * "internal", never a stack trace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard, type DashboardHandle } from '../../src/dashboard/server.js';
import { silentLogger } from '../../src/log.js';
import { MAX_TARGET_BYTES } from '../../src/net/request-url.js';
import { startCli, type Started } from '../cli/cli-process.js';
import { makeTestApp, type TestApp } from '../dashboard/dashboard-app.js';
import { makeDirs, serverEnv, writeConfig } from '../e2e/harness.js';
import { until } from '../helpers/processes.js';
import { rawRequest, type RawAnswer, type RawRequest } from '../helpers/raw-http.js';

interface Case extends RawRequest {
  readonly status: number;
  /** Words the answer must hold: what was wrong. */
  readonly says: string;
  /** What to do, when it is not the surface's usual advice. */
  readonly does?: string;
}

/** The words of an answer: the JSON message (dashboard API, JSON-RPC error) or the plain text. */
function wordsOf(body: string): string {
  try {
    const json = JSON.parse(body) as { message?: string; error?: { message?: string } };
    return json.message ?? json.error?.message ?? body;
  } catch {
    return body;
  }
}

/** The status and words expected, and nothing no answer to bad input may hold. */
function expectWords(answer: RawAnswer, c: Case, retry: string): void {
  const words = wordsOf(answer.body);
  const target = c.target.slice(0, 80);
  expect({ target, status: answer.status, saysIt: words.includes(c.says), words }).toMatchObject({ target, status: c.status, saysIt: true });
  if (c.status !== 401 && c.status !== 403) expect(words).toContain(c.does ?? retry);
  expect(answer.body).not.toMatch(/internal|\n\s+at |URIError|URI malformed/);
}

const LONG = 'x'.repeat(MAX_TARGET_BYTES);
const UNKNOWN_ID = '20261129-111500-7gk2mq4xrz9d';

describe('the dashboard answers every malformed URL with a 4xx in words', () => {
  let t: TestApp;
  let dash: DashboardHandle;
  let port: number;
  let tok: string;

  beforeAll(async () => {
    t = makeTestApp('  gpu:\n    base_url: http://127.0.0.1:9\n');
    dash = await startDashboard(t.app, { log: silentLogger });
    port = dash.address.port;
    tok = `token=${dash.token}`;
  });
  afterAll(async () => {
    await dash?.close();
    await t?.app.close();
  });

  it('finding 1: a malformed percent-escape in a job id is a 400 that says so, not a 500 "URI malformed"', async () => {
    const answer = await rawRequest(port, { target: `/api/jobs/%E0%A4%A?${tok}` });
    expect(answer.status).toBe(400);
    const body = JSON.parse(answer.body) as { error: string; message: string };
    expect(body.error).toBe('bad_request');
    expect(body.message).toContain('"%E0%A4%A" has a malformed percent-escape');
    expect(body.message).toContain('Open the exact URL that `localagents dashboard` printed.');
  });

  it('answers each of 30 malformed requests with the status and words for what was wrong', async () => {
    const cases: Case[] = [
      { target: `/api/jobs/%E0%A4%A/requests?${tok}`, status: 400, says: 'malformed percent-escape' },
      { target: `/api/jobs/%ZZ?${tok}`, status: 400, says: 'malformed percent-escape' },
      { target: `/api/jobs/%?${tok}`, status: 400, says: 'malformed percent-escape' },
      { target: `/api/jobs/%C0%AF?${tok}`, status: 400, says: 'malformed percent-escape' },
      { target: `/api/jobs?token=%ZZ`, status: 400, says: 'the value of query parameter "token"' },
      { target: `/api/jobs/${'a'.repeat(300)}?${tok}`, status: 400, says: 'is not a job id; expected the form 20261129-111500-7gk2mq4xrz9d' },
      { target: `/api/jobs/abc%00?${tok}`, status: 400, says: 'NUL or another control character' },
      { target: `/api/jobs/abc\u0000?${tok}`, status: 400, says: 'not an HTTP request this server can read' },
      { target: `/api/jobs?to%00ken=x&${tok}`, status: 400, says: 'NUL or another control character' },
      { target: `/api/jobs/..?${tok}`, status: 400, says: 'climbs with ".."' },
      { target: `/api/jobs/%2e%2e/requests?${tok}`, status: 400, says: 'climbs with ".."' },
      { target: `/static/%2E%2E?${tok}`, status: 400, says: 'climbs with ".."' },
      { target: `/static/..%2f..%2fpackage.json`, status: 400, says: 'holds an encoded / or \\' },
      { target: `/static/..\\..\\package.json`, status: 400, says: 'holds a backslash' },
      { target: `/api/jobs/a%5Cb?${tok}`, status: 400, says: 'holds an encoded / or \\' },
      { target: `/api/jobs/a%2Fb?${tok}`, status: 400, says: 'holds an encoded / or \\' },
      { target: `/api/jobs/?${tok}`, status: 400, says: 'has an empty segment' },
      { target: `/api/jobs//requests?${tok}`, status: 400, says: 'has an empty segment' },
      { target: `/api/jobs?${tok}&${tok}`, status: 400, says: 'the query parameter "token" appears more than once' },
      { target: `/api/jobs?${tok}`, headers: { authorization: 'Bearer someone-else' }, status: 400, says: 'two different tokens' },
      { target: '/api/jobs', status: 403, says: 'this request has no token' },
      { target: '/api/jobs?token=', status: 403, says: 'this request has no token' },
      { target: '/api/jobs?token=wrong', status: 403, says: 'this request has wrong token' },
      { target: `/api/jobs/${UNKNOWN_ID}?${tok}`, status: 404, says: `no job ${UNKNOWN_ID}`, does: 'shows the jobs on record' },
      { target: `/api/nope?${tok}`, status: 404, says: 'nothing at /api/nope; the dashboard serves /, /api/jobs' },
      { target: `/api/jobs/${UNKNOWN_ID}/requests/more?${tok}`, status: 404, says: 'the dashboard serves' },
      { target: '/static/nope.js', status: 404, says: 'no static file /static/nope.js' },
      { method: 'POST', target: `/api/jobs?${tok}`, body: '{}', status: 405, says: 'answers GET and HEAD only, not POST' },
      { method: 'DELETE', target: `/?${tok}`, status: 405, says: 'answers GET and HEAD only, not DELETE' },
      { target: `/?${tok}&pad=${LONG}`, status: 414, says: `this server takes at most ${MAX_TARGET_BYTES}` },
      { target: `http://127.0.0.1/api/jobs?${tok}`, status: 400, says: 'is not a path starting with /' },
      { target: `/api/jobs?${tok}`, host: 'evil.example', status: 403, says: 'Host "evil.example" is not this server' },
      { target: `/api/jobs?${tok}`, host: 'localhost.', status: 403, says: 'is not this server' },
      { target: `/api/jobs?${tok}`, host: null, version: '1.0', status: 403, says: 'Host "" is not this server' },
    ];
    for (const c of cases) {
      const answer = await rawRequest(port, c);
      expectWords(answer, c, c.status === 404 && c.target.startsWith('/static/') ? '' : c.says.includes('HTTP request') ? '' : 'Open the exact URL');
    }
  });
});

describe('MCP over HTTP (the built binary) answers every malformed request with a 4xx in words', { timeout: 120_000 }, () => {
  let server: Started;
  let port: number;
  let token: string;
  const retry = 'The MCP endpoint is POST /mcp';

  beforeAll(async () => {
    const dirs = makeDirs();
    writeConfig(dirs, 'endpoints:\n  gpu:\n    base_url: http://127.0.0.1:9\n');
    server = startCli(['--config', dirs.config, '--transport', 'streamable-http', '--port', '0'], { cwd: dirs.repo, env: serverEnv(dirs) });
    expect(await until(() => /bearer token .*: (\S+)\n/.test(server.stderr()), 60_000)).toBe(true);
    port = Number(new URL(/MCP streamable HTTP on (\S+)/.exec(server.stderr())![1]!).port);
    token = /bearer token .*: (\S+)\n/.exec(server.stderr())![1]!;
  }, 90_000);
  afterAll(async () => {
    server?.child.kill('SIGTERM');
    await server?.result;
  });

  it('answers each of 24 malformed requests with the status and words for what was wrong', async () => {
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    const cases: Case[] = [
      { method: 'POST', target: '/mcp%ZZ', headers: auth, body: init, status: 400, says: 'malformed percent-escape' },
      { method: 'POST', target: '/mcp?%E0%A4%A=1', headers: auth, body: init, status: 400, says: 'malformed percent-escape' },
      { method: 'POST', target: '/mcp/../mcp', headers: auth, body: init, status: 400, says: 'climbs with ".."' },
      { method: 'POST', target: '/x/%2e%2e/mcp', headers: auth, body: init, status: 400, says: 'climbs with ".."' },
      { method: 'POST', target: '/mcp\\', headers: auth, body: init, status: 400, says: 'holds a backslash' },
      { method: 'POST', target: '/mcp%5C', headers: auth, body: init, status: 400, says: 'holds an encoded / or \\' },
      { method: 'POST', target: '/mcp%00', headers: auth, body: init, status: 400, says: 'NUL or another control character' },
      { method: 'POST', target: '/mcp\u0000', headers: auth, body: init, status: 400, says: 'not an HTTP request this server can read' },
      { method: 'POST', target: '/mcp/', headers: auth, body: init, status: 400, says: 'has an empty segment' },
      { method: 'POST', target: '//mcp', headers: auth, body: init, status: 400, says: 'has an empty segment' },
      { method: 'POST', target: `/mcp?token=${token}`, headers: auth, body: init, status: 400, says: 'the token goes in the Authorization: Bearer header, not in the URL' },
      { method: 'POST', target: '/mcp?a=1&a=2', headers: auth, body: init, status: 400, says: '"a" appears more than once' },
      { method: 'POST', target: `/mcp?pad=${LONG}`, headers: auth, body: init, status: 414, says: `this server takes at most ${MAX_TARGET_BYTES}` },
      { method: 'POST', target: 'http://127.0.0.1/mcp', headers: auth, body: init, status: 400, says: 'is not a path starting with /' },
      { method: 'POST', target: '/mcpfoo', headers: auth, body: init, status: 404, says: 'nothing at /mcpfoo' },
      { method: 'POST', target: '/other', headers: auth, body: init, status: 404, says: 'nothing at /other' },
      { method: 'PUT', target: '/mcp', headers: auth, body: init, status: 405, says: 'method not allowed: PUT' },
      { method: 'PATCH', target: '/mcp', headers: auth, body: init, status: 405, says: 'method not allowed: PATCH' },
      { method: 'POST', target: '/mcp', headers: { ...auth, authorization: '' }, body: init, status: 401, says: 'this request has no token' },
      { method: 'POST', target: '/mcp', headers: { ...auth, authorization: 'Bearer nope' }, body: init, status: 401, says: 'this request has wrong token' },
      { method: 'POST', target: '/mcp', headers: { ...auth, authorization: `Basic ${token}` }, body: init, status: 401, says: 'this request has no token' },
      { method: 'POST', target: '/mcp', headers: auth, host: 'evil.example', body: init, status: 403, says: 'is not this server' },
      { method: 'POST', target: '/mcp', headers: { ...auth, origin: 'http://evil.example' }, body: init, status: 403, says: 'cross-site Origin' },
      { method: 'POST', target: '/mcp', headers: auth, body: 'not json', status: 400, says: 'the request body is not JSON' },
      { method: 'POST', target: '/mcp', headers: auth, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', status: 400, says: 'send initialize first' },
    ];
    for (const c of cases) {
      const answer = await rawRequest(port, c);
      const plain = c.says.includes('HTTP request') || c.says.includes('initialize') || c.says.includes('not JSON');
      expectWords(answer, c, plain ? '' : retry);
    }
  });
});
