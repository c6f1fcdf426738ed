/**
 * register_* writes go to models.local.yaml: created on a fresh machine, mode
 * 0600, comments and other entries kept, models.yaml never touched, and
 * concurrent writers (in one process and across processes) all land.
 */
import { execFile } from 'node:child_process';
import { chmod, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { upsertSidecarEntry } from '../../src/config/sidecar.js';
import { BadArgumentError, ConfigError } from '../../src/errors.js';
import { makeTempDir, type TempDir } from './temp-dir.js';

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHILD = fileURLToPath(new URL('./upsert-child.ts', import.meta.url));

let tmp: TempDir;
beforeEach(async () => {
  tmp = await makeTempDir();
});
afterEach(() => tmp.remove());

const modeOf = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

describe('upsertSidecarEntry', () => {
  it('on a fresh machine creates the config dir and a 0600 sidecar that the loader then reads', async () => {
    const home = join(tmp.path, 'home');
    const empty = await loadConfig({ cwd: tmp.path, homeDir: home, env: {} });
    const written = await upsertSidecarEntry(empty.sidecarPath, 'endpoints', 'gpu', { base_url: 'http://gpu-box:8080', max_jobs: 2 });
    expect(written).toEqual({ base_url: 'http://gpu-box:8080', backend: 'llama.cpp', max_jobs: 2 });

    expect(await modeOf(empty.sidecarPath)).toBe(0o600);
    const text = await readFile(empty.sidecarPath, 'utf8');
    expect(text).toMatch(/^# models\.local\.yaml: written by localagents/);
    const after = await loadConfig({ cwd: tmp.path, homeDir: home, env: {} });
    expect(after.endpoints).toEqual([{ name: 'gpu', base_url: 'http://gpu-box:8080', backend: 'llama.cpp', max_jobs: 2, apiKey: undefined }]);
  });

  it('leaves the hand-written models.yaml byte-identical and overrides it through the sidecar', async () => {
    const handWritten = '# mine, do not touch\nendpoints:\n  gpu:   # the 4090\n    base_url: "http://gpu-box:8080"\n    max_jobs: 1\n';
    const main = await tmp.write('models.yaml', handWritten);
    const before = await readFile(main);
    const config = await loadConfig({ cwd: tmp.path, homeDir: tmp.path, env: {} });

    await upsertSidecarEntry(config.sidecarPath, 'endpoints', 'gpu', { base_url: 'http://gpu-box:9090' });
    await upsertSidecarEntry(config.sidecarPath, 'models', 'coder', { endpoint: 'gpu', notes: 'fast' });

    expect((await readFile(main)).equals(before)).toBe(true);
    const after = await loadConfig({ cwd: tmp.path, homeDir: tmp.path, env: {} });
    expect(after.endpoints.map((e) => [e.name, e.base_url, e.max_jobs])).toEqual([['gpu', 'http://gpu-box:9090', undefined]]);
    expect(after.models).toEqual([{ name: 'coder', endpoint: 'gpu', notes: 'fast' }]);
  });

  it('keeps comments and other entries, replaces a same-named entry whole, and leaves defaults alone', async () => {
    const sidecar = await tmp.write(
      'models.local.yaml',
      '# my notes about these boxes\nendpoints:\n  old: # keep me\n    base_url: http://old:8080\n  gpu:\n    base_url: http://gpu:1\n    max_jobs: 3\ndefaults:\n  max_turns: 10\n',
    );
    await upsertSidecarEntry(sidecar, 'endpoints', 'gpu', { base_url: 'http://gpu:2', backend: 'vllm' });
    const text = await readFile(sidecar, 'utf8');
    expect(text).toContain('# my notes about these boxes');
    expect(text).toContain('# keep me');
    const config = await loadConfig({ configPath: sidecar, cwd: tmp.path, homeDir: tmp.path, env: {} });
    expect(config.endpoints.map((e) => [e.name, e.base_url, e.backend, e.max_jobs])).toEqual([
      ['old', 'http://old:8080', 'llama.cpp', undefined],
      ['gpu', 'http://gpu:2', 'vllm', undefined],
    ]);
    expect(config.defaults.max_turns).toBe(10);
  });

  it('fills an empty section as a block mapping and tightens a 0644 file to 0600', async () => {
    const sidecar = await tmp.write('models.local.yaml', 'endpoints:\nmodels: {}\n');
    await chmod(sidecar, 0o644);
    await upsertSidecarEntry(sidecar, 'models', 'm', { notes: 'x' });
    expect(await modeOf(sidecar)).toBe(0o600);
    expect(await readFile(sidecar, 'utf8')).toBe('endpoints:\nmodels:\n  m:\n    notes: x\n');
    const config = await loadConfig({ configPath: sidecar, cwd: tmp.path, homeDir: tmp.path, env: {} });
    expect(config.models).toEqual([{ name: 'm', notes: 'x' }]);
  });

  it('rejects an invalid entry with the schema message and writes nothing', async () => {
    const sidecar = join(tmp.path, 'models.local.yaml');
    const err = await upsertSidecarEntry(sidecar, 'endpoints', 'gpu', { base_url: 'http://gpu-box:8080/v1', max_jobs: 0 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BadArgumentError);
    expect((err as BadArgumentError).argument).toBe('base_url');
    expect((err as BadArgumentError).message).toBe(
      [
        'endpoints.gpu.base_url: "http://gpu-box:8080/v1" has a path (/v1); give the server root, e.g. http://gpu-box:8080 — localagents adds /v1/messages itself',
        'endpoints.gpu.max_jobs: expected an integer from 1 to 256, got 0',
      ].join('\n'),
    );
    await expect(stat(sidecar)).rejects.toThrow(/ENOENT/);
  });

  it('rejects api_key together with api_key_env, and an empty name', async () => {
    const sidecar = join(tmp.path, 'models.local.yaml');
    await expect(
      upsertSidecarEntry(sidecar, 'endpoints', 'rack', { base_url: 'http://rack:1', api_key: 'k', api_key_env: 'K' }),
    ).rejects.toThrow('endpoints.rack.api_key_env: api_key and api_key_env are both set');
    await expect(upsertSidecarEntry(sidecar, 'models', ' ', {})).rejects.toThrow('name must not be empty');
  });

  it('refuses a name that is not one printable line, and keeps a YAML-shaped value one scalar (issue 24)', async () => {
    const home = join(tmp.path, 'home');
    const { sidecarPath } = await loadConfig({ cwd: tmp.path, homeDir: home, env: {} });
    await expect(upsertSidecarEntry(sidecarPath, 'models', 'm\ndefaults:\n  allow_bypass_permissions: true', {})).rejects.toThrow(
      'name must be one printable line of 1 to 128 characters without leading or trailing spaces, not "m\\ndefaults:\\n  allow_bypass_permissions: true"',
    );
    await expect(upsertSidecarEntry(sidecarPath, 'models', 'evil\u001b]0;x\u0007', {})).rejects.toThrow(BadArgumentError);
    const notes = 'fast\ndefaults:\n  allow_bypass_permissions: true\n  permission_mode: bypassPermissions';
    await upsertSidecarEntry(sidecarPath, 'models', 'coder', { notes });
    const after = await loadConfig({ cwd: tmp.path, homeDir: home, env: {} });
    expect(after.defaults.allow_bypass_permissions).toBe(false);
    expect(after.models.find((m) => m.name === 'coder')?.notes).toBe(notes);
  });

  it('refuses to rewrite a sidecar it cannot parse, and leaves it as it was', async () => {
    const broken = 'endpoints:\n  gpu:\n    base_url: "http://unclosed\n';
    const sidecar = await tmp.write('models.local.yaml', broken);
    const err = await upsertSidecarEntry(sidecar, 'endpoints', 'new', { base_url: 'http://new:1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toBe(`${sidecar}:3: YAML syntax error: Missing closing "quote`);
    expect(await readFile(sidecar, 'utf8')).toBe(broken);
  });

  it('lands every entry when 20 upserts in this process race 2 child processes doing 10 each', async () => {
    const sidecar = join(tmp.path, 'conf', 'models.local.yaml');
    const children = ['child-a', 'child-b'].map((prefix) =>
      run(process.execPath, ['--import', 'tsx', CHILD, sidecar, prefix, '10'], { cwd: REPO_ROOT }),
    );
    const local = Array.from({ length: 20 }, (_, i) =>
      upsertSidecarEntry(sidecar, 'endpoints', `local-${i}`, { base_url: `http://127.0.0.1:${8000 + i}` }),
    );
    await Promise.all([...children, ...local]);

    const config = await loadConfig({ configPath: sidecar, cwd: tmp.path, homeDir: tmp.path, env: {} });
    const names = config.endpoints.map((e) => e.name).sort();
    const expected = [
      ...Array.from({ length: 20 }, (_, i) => `local-${i}`),
      ...Array.from({ length: 10 }, (_, i) => `child-a-${i}`),
      ...Array.from({ length: 10 }, (_, i) => `child-b-${i}`),
    ].sort();
    expect(names).toEqual(expected);
    expect(config.endpoints.find((e) => e.name === 'local-7')?.base_url).toBe('http://127.0.0.1:8007');
    // No lock or temp file left behind.
    expect(await readdir(join(tmp.path, 'conf'))).toEqual(['models.local.yaml']);
    expect(await modeOf(sidecar)).toBe(0o600);
  });
});
