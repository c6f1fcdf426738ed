/**
 * Where models.yaml is found: --config, then $LOCALAGENTS_CONFIG, then ./models.yaml,
 * then $XDG_CONFIG_HOME (or ~/.config)/localagents/models.yaml; an empty registry
 * when none exists. cwd, env and home are always passed in, never taken from the process.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';
import { makeTempDir, oneEndpoint, type TempDir } from './temp-dir.js';

let tmp: TempDir;
let cwd: string;
let home: string;

beforeEach(async () => {
  tmp = await makeTempDir();
  cwd = join(tmp.path, 'project');
  home = join(tmp.path, 'home');
  // Every candidate exists, each with an endpoint named after where it lives.
  await tmp.write('explicit/models.yaml', oneEndpoint('from-flag'));
  await tmp.write('env/custom.yaml', oneEndpoint('from-env'));
  await tmp.write('project/models.yaml', oneEndpoint('from-cwd'));
  await tmp.write('home/.config/localagents/models.yaml', oneEndpoint('from-home'));
  await tmp.write('xdg/localagents/models.yaml', oneEndpoint('from-xdg'));
});
afterEach(() => tmp.remove());

async function endpointNames(opts: { configPath?: string; env?: Record<string, string> }): Promise<string[]> {
  const config = await loadConfig({ cwd, homeDir: home, env: opts.env ?? {}, configPath: opts.configPath });
  return config.endpoints.map((e) => e.name);
}

describe('config discovery order', () => {
  it('uses --config over everything else', async () => {
    const env = { LOCALAGENTS_CONFIG: join(tmp.path, 'env/custom.yaml'), XDG_CONFIG_HOME: join(tmp.path, 'xdg') };
    expect(await endpointNames({ configPath: join(tmp.path, 'explicit/models.yaml'), env })).toEqual(['from-flag']);
  });

  it('resolves a relative --config against the cwd passed in', async () => {
    const config = await loadConfig({ cwd, homeDir: home, env: {}, configPath: '../explicit/models.yaml' });
    expect(config.endpoints.map((e) => e.name)).toEqual(['from-flag']);
    expect(config.path).toBe(join(tmp.path, 'explicit/models.yaml'));
    expect(config.sidecarPath).toBe(join(tmp.path, 'explicit/models.local.yaml'));
  });

  it('uses $LOCALAGENTS_CONFIG when there is no --config', async () => {
    const config = await loadConfig({ cwd, homeDir: home, env: { LOCALAGENTS_CONFIG: join(tmp.path, 'env/custom.yaml') } });
    expect(config.endpoints.map((e) => e.name)).toEqual(['from-env']);
    expect(config.sidecarPath).toBe(join(tmp.path, 'env/models.local.yaml'));
  });

  it('uses ./models.yaml in the given cwd before the user config dir', async () => {
    const config = await loadConfig({ cwd, homeDir: home, env: { XDG_CONFIG_HOME: join(tmp.path, 'xdg') } });
    expect(config.endpoints.map((e) => e.name)).toEqual(['from-cwd']);
    expect(config.searched).toEqual([join(cwd, 'models.yaml')]);
  });

  it('falls back to $XDG_CONFIG_HOME/localagents/models.yaml', async () => {
    const elsewhere = join(tmp.path, 'empty-project');
    const config = await loadConfig({ cwd: elsewhere, homeDir: home, env: { XDG_CONFIG_HOME: join(tmp.path, 'xdg') } });
    expect(config.endpoints.map((e) => e.name)).toEqual(['from-xdg']);
    expect(config.sidecarPath).toBe(join(tmp.path, 'xdg/localagents/models.local.yaml'));
  });

  it('falls back to ~/.config/localagents/models.yaml without XDG_CONFIG_HOME, and ignores a relative one', async () => {
    const elsewhere = join(tmp.path, 'empty-project');
    expect((await loadConfig({ cwd: elsewhere, homeDir: home, env: {} })).endpoints.map((e) => e.name)).toEqual(['from-home']);
    const relative = await loadConfig({ cwd: elsewhere, homeDir: home, env: { XDG_CONFIG_HOME: 'xdg' } });
    expect(relative.endpoints.map((e) => e.name)).toEqual(['from-home']);
  });

  it('returns an empty registry when nothing is found, with the default sidecar path and the places searched', async () => {
    const bare = await makeTempDir();
    try {
      const config = await loadConfig({ cwd: join(bare.path, 'p'), homeDir: join(bare.path, 'h'), env: {} });
      expect(config.path).toBeUndefined();
      expect(config.endpoints).toEqual([]);
      expect(config.models).toEqual([]);
      expect(config.defaults.permission_mode).toBe('acceptEdits');
      expect(config.sidecarPath).toBe(join(bare.path, 'h/.config/localagents/models.local.yaml'));
      expect(config.searched).toEqual([join(bare.path, 'p/models.yaml'), join(bare.path, 'h/.config/localagents/models.yaml')]);
    } finally {
      await bare.remove();
    }
  });

  it('fails, naming the path, when --config points at nothing', async () => {
    const err = await loadConfig({ cwd, homeDir: home, env: {}, configPath: 'nope.yaml' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toBe('config file nope.yaml (from --config) does not exist');
    expect((err as ConfigError).file).toBe('nope.yaml');
  });

  it('fails, naming the variable, when $LOCALAGENTS_CONFIG points at nothing (no silent fallback)', async () => {
    const missing = join(tmp.path, 'gone.yaml');
    await expect(loadConfig({ cwd, homeDir: home, env: { LOCALAGENTS_CONFIG: missing } })).rejects.toThrow(
      `config file ${missing} (from LOCALAGENTS_CONFIG) does not exist`,
    );
  });

  it('fails when --config names a directory', async () => {
    await expect(loadConfig({ cwd, homeDir: home, env: {}, configPath: '.' })).rejects.toThrow(
      'config file . (from --config) is not a file',
    );
  });
});
