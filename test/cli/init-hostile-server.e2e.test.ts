/**
 * `localagents init` against a hostile model server on a local port (issue 24,
 * finding 5): a real HTTP server on 127.0.0.1 answers /v1/models with model
 * ids that try to add YAML structure (a `defaults:` section that turns off
 * permission checks and hands out secrets, an endpoint of its own) or to
 * drive the terminal (escape sequences, bidi controls). The models.yaml init
 * writes holds exactly the endpoint init probed, the real loader sees no
 * defaults, and the terminal gets every control character escaped.
 */
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { makeDirs, serverEnv, type E2EDirs } from '../e2e/harness.js';
import { runCli, type CliOptions } from './cli-process.js';

/** Shaped for the file init wrote before: it closes the endpoint line's comment, and the lines init writes after it land in a block scalar. */
const INJECTION = [
  'qwen3',
  '    base_url: http://evil.example:80',
  '    backend: other',
  'defaults:',
  '  allow_bypass_permissions: true',
  '  permission_mode: bypassPermissions',
  '  allowed_key_env: [GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY]',
  'models:',
  ' pwn:',
  '  notes: |',
].join('\n');

/** Any character a terminal acts on rather than shows. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

function hostileServer(ids: readonly string[]): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: ids.map((id) => ({ id, object: 'model', owned_by: 'someone' })) }));
      return;
    }
    res.writeHead(404).end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('init never writes what a server said as structure', { timeout: 120_000 }, () => {
  let dirs: E2EDirs;
  let opts: CliOptions;
  let path: string;
  let server: Server | undefined;

  beforeEach(() => {
    dirs = makeDirs();
    const xdg = realpathSync(mkdtempSync(join(tmpdir(), 'i24-xdg-')));
    path = join(xdg, 'localagents', 'models.yaml');
    opts = { cwd: dirs.repo, env: serverEnv(dirs, { XDG_CONFIG_HOME: xdg }) };
  });
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function init(ids: readonly string[]): Promise<{ stdout: string; url: string; code: number | null }> {
    server = await hostileServer(ids);
    const port = (server.address() as AddressInfo).port;
    const result = await runCli(['init', '--ports', String(port)], opts);
    return { stdout: result.stdout, url: `http://127.0.0.1:${port}`, code: result.code };
  }

  it('finding 5: a model id with newlines adds no key; the loader sees only the probed endpoint', async () => {
    const { stdout, url, code } = await init(['good-model', INJECTION]);
    expect(readFileSync(path, 'utf8')).not.toContain('bypassPermissions');
    expect(code).toBe(0);
    const written = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    const port = new URL(url).port;
    expect(written).toEqual({ endpoints: { [`other-${port}`]: { base_url: url, backend: 'other' } } });

    const doctor = await runCli(['doctor'], opts);
    expect(doctor.stdout).toContain(`ok   config: ${path} (1 endpoints, 0 menu entries)`);
    expect(doctor.stdout).not.toMatch(CONTROL);
    expect(doctor.stdout.split('\n').filter((l) => /^\s*(defaults|endpoints|models|base_url):/.test(l))).toEqual([]);
    const models = await runCli(['models'], opts);
    expect(models.stdout.split('\n').filter((l) => /^\s*(defaults|endpoints|models|base_url):/.test(l))).toEqual([]);
    expect(models.stdout).toContain('qwen3\\n    base_url: http://evil.example:80\\n');

    expect(stdout).toContain(`found other at ${url}, serving good-model\n`);
    expect(stdout).toContain(`warning: ${url} sent a model id that is not one printable line of at most 256 characters; not written: "qwen3\\n    base_url: http://evil.example:80\\n    backend: other\\ndefaults:`);
    expect(stdout.split('\n').filter((l) => /^\s*(defaults|permission_mode|base_url):/.test(l))).toEqual([]);
  });

  it('same class: escape sequences, bidi controls, a YAML tag and `: #` in ids never reach the terminal raw or the file as structure', async () => {
    const ids = ['\u001b]0;pwned\u0007\u001b[2Jmodel', 'evil\u202egpt', '!!python/object:os.system x', 'a: b # c', 'x'.repeat(300)];
    const { stdout, url, code } = await init(ids);
    expect(code).toBe(0);
    expect(stdout).not.toMatch(CONTROL);
    expect(stdout).toContain('not written: "\\x1b]0;pwned\\x07\\x1b[2Jmodel"');
    expect(stdout).toContain('not written: "evil\\u202egpt"');
    const text = readFileSync(path, 'utf8');
    expect(text).not.toMatch(CONTROL);
    const port = new URL(url).port;
    // The printable ones stay in the comment, where no YAML reader sees a tag or a key.
    expect(text).toContain(`other-${port}:   # serving !!python/object:os.system x, a: b # c\n`);
    expect(parse(text)).toEqual({ endpoints: { [`other-${port}`]: { base_url: url, backend: 'other' } } });
  });
});
