/**
 * Issue #11 class 4: a model server (or proxy) that echoes our credentials
 * back on the probe path must not put them anywhere a person or the calling
 * model reads: list_models text and structuredContent, `models --json`,
 * `doctor`, the dashboard's /api/endpoints, the server's log. The key comes
 * from models.yaml (`api_key`) for one endpoint and from the user's environment
 * (`api_key_env`) for the other, and is echoed as is, JSON-escaped inside a
 * string, and base64-encoded (an echoed Authorization header), placed so that a
 * probe's 120-character excerpt would cut it in half.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard } from '../../src/dashboard/server.js';
import { silentLogger } from '../../src/log.js';
import { runCli } from '../cli/cli-process.js';
import { connect, makeDirs, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { startInProcess } from '../reliability/in-process.js';
import { json, startHostileServer, type HostileServer } from './hostile-server.js';

const YAML_KEY = `sk-yaml-${randomBytes(12).toString('hex')}`;
const ENV_KEY = `sk-env-${randomBytes(12).toString('hex')}`;
const KEY_ENV = { LA_SECURITY_TEST_KEY: ENV_KEY };

/** What leaks if redaction misses: the whole key, or the first half of its random part (a cut-off excerpt). */
function leaks(text: string): string[] {
  const found: string[] = [];
  for (const key of [YAML_KEY, ENV_KEY]) {
    const random = key.slice(key.lastIndexOf('-') + 1);
    for (const piece of [key, random.slice(0, 10)]) if (text.includes(piece)) found.push(piece);
  }
  return found;
}

/** Every way a careless proxy quotes the request's credentials back. */
function echo(authorization: string): string {
  const key = authorization.replace(/^Bearer /, '');
  return [
    // After the 45 characters of `{"error":{"message":"upstream proxy refused: `, the key starts at 98 and
    // straddles the probe's 120-character excerpt: half a key would slip past a redaction done afterwards.
    `${'x'.repeat(40)} auth=${authorization}`,
    `json=${JSON.stringify(JSON.stringify({ header: authorization }))}`,
    `basic=${Buffer.from(`user:${key}`).toString('base64')}`,
    `b64=${Buffer.from(authorization).toString('base64')}`,
  ].join(' | ');
}

describe('keys echoed by a model server stay out of every output', () => {
  let hostile: HostileServer;
  let dirs: E2EDirs;

  beforeAll(async () => {
    hostile = await startHostileServer();
    // Endpoint "echo": its model list fails with an error that quotes the headers back.
    hostile.on('GET /v1/models', (req, res) => {
      const auth = String(req.headers.authorization ?? '');
      if (auth === `Bearer ${YAML_KEY}`) return json(res, 500, { error: { message: `upstream proxy refused: ${echo(auth)}` } });
      json(res, 200, { object: 'list', data: [{ id: 'qwen-echo', meta: { n_ctx: 131072 } }] });
    });
    // Endpoint "envkey" is up, but its /props, /slots and /metrics answers carry the key in fields we show or read.
    hostile.on('GET /props', (req, res) => {
      const auth = String(req.headers.authorization ?? '');
      json(res, 200, { total_slots: 1, build_info: `b9553 ${echo(auth)}`, default_generation_settings: { n_ctx: 131072 } });
    });
    hostile.on('GET /slots', (req, res) => json(res, 500, { error: { message: echo(String(req.headers.authorization ?? '')) } }));
    hostile.on('GET /metrics', (req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`metrics refused ${echo(String(req.headers.authorization ?? ''))}`);
    });
    dirs = makeDirs();
    // Two endpoints on one server, told apart by the key each sends.
    writeConfig(
      dirs,
      [
        'endpoints:',
        `  echo:\n    base_url: ${hostile.url}\n    api_key: ${YAML_KEY}`,
        `  envkey:\n    base_url: ${hostile.url}/\n    api_key_env: LA_SECURITY_TEST_KEY`,
        'defaults:\n  probe_timeout_s: 5',
        '',
      ].join('\n'),
    );
  });
  afterAll(async () => {
    await hostile?.close();
  });

  it('the echo really happens: the probes send the keys and the server quotes them', async () => {
    const res = await fetch(`${hostile.url}/v1/models`, { headers: { authorization: `Bearer ${YAML_KEY}` } });
    expect(leaks(await res.text())).not.toEqual([]);
  });

  it('list_models over stdio (the built binary): text and structuredContent carry no key, stderr neither', async () => {
    const server = await connect(dirs, KEY_ENV);
    let stderr = '';
    server.transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const result = await server.call('list_models', {});
      const text = JSON.stringify(result);
      // The probe did see the echo: the endpoint is reported as failing, with the proxy's words.
      expect(text).toContain('upstream proxy refused');
      expect(text).toContain('[redacted]');
      expect(leaks(text)).toEqual([]);
    } finally {
      await server.close();
    }
    expect(leaks(stderr)).toEqual([]);
  });

  it('`models --json`, `models` and `doctor` print no key', async () => {
    const env = serverEnv(dirs, KEY_ENV);
    const commands = [['models', '--json'], ['models'], ['doctor'], ['doctor', '--json']];
    const outputs = await Promise.all(commands.map((args) => runCli(['--config', dirs.config, ...args], { cwd: dirs.repo, env, timeoutMs: 100_000 })));
    outputs.forEach((out, i) => {
      const name = commands[i]?.join(' ');
      expect(out.stdout, name).toContain('upstream proxy refused');
      expect([name, leaks(out.stdout + out.stderr)]).toEqual([name, []]);
    });
  }, 120_000);

  it("the dashboard's /api/endpoints carries no key", async () => {
    const h = await startInProcess({ yaml: readFileSync(dirs.config, 'utf8'), env: KEY_ENV });
    const dashboard = await startDashboard(h.app, { log: silentLogger });
    try {
      const res = await fetch(`${new URL(dashboard.url).origin}/api/endpoints?token=${dashboard.token}`);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toContain('upstream proxy refused');
      expect(leaks(text)).toEqual([]);
      expect(leaks(h.logLines.join('\n'))).toEqual([]);
    } finally {
      await dashboard.close();
      await h.close();
    }
  });
});
