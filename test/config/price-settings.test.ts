// The price settings cache (src/config/price-settings.ts): used only while models.yaml and models.local.yaml are
// byte-for-byte the files it was made from, replaced on every edit, and never trusted when damaged.
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPriceSettings } from '../../src/config/price-settings.js';

const table = (input: number): string =>
  `endpoints: {}\ndefaults:\n  compare_with: my-model\n  prices:\n    my-model: { input: ${input}, cache_write: 3.75, cache_read: 0.3, output: 15 }\n`;

describe('loadPriceSettings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'la-prices-'));
  const file = join(dir, 'models.yaml');
  const state = join(dir, 'state');
  const cache = join(state, 'price-settings', 'settings.json');
  type Entry = { files: string; signature: string; prices: Record<string, { input: number | string }> };
  const entries = (): Entry[] => JSON.parse(readFileSync(cache, 'utf8')) as Entry[];
  const load = (): ReturnType<typeof loadPriceSettings> => loadPriceSettings({ configPath: file, cwd: dir, env: {}, homeDir: dir }, state);

  it('loads models.yaml once, keeps the settings owner-only in the state dir, and answers from there while the file is unchanged', async () => {
    writeFileSync(file, table(3));
    expect(await load()).toEqual({ compare_with: 'my-model', prices: { 'my-model': { input: 3, cache_write: 3.75, cache_read: 0.3, output: 15 } } });
    expect(readdirSync(join(state, 'price-settings'))).toEqual(['settings.json']);
    expect(entries()).toHaveLength(1);
    expect(statSync(cache).mode & 0o777).toBe(0o600);
    // What the next run reads is the cache: a settings file with the same signature but another price shows it.
    const cached = entries();
    cached[0]!.prices['my-model']!.input = 4;
    writeFileSync(cache, JSON.stringify(cached));
    expect((await load()).prices['my-model']?.input).toBe(4);
  });

  it('sees an edit of the same size at once, and a sidecar that appears or goes', async () => {
    writeFileSync(file, table(5));
    expect((await load()).prices['my-model']?.input).toBe(5);
    writeFileSync(join(dir, 'models.local.yaml'), 'defaults:\n  compare_with: claude-opus-5\n');
    expect((await load()).compare_with).toBe('claude-opus-5');
    rmSync(join(dir, 'models.local.yaml'));
    expect((await load()).compare_with).toBe('my-model');
  });

  it('ignores a damaged or misshapen cache and replaces it', async () => {
    const { files, signature } = entries()[0]!;
    const misshapen = [{ files, signature, prices: { m: { input: -1 } } }, { files, signature, prices: { 'my-model': { input: 'free', cache_write: 1, cache_read: 1, output: 1 } } }, { signature, prices: {} }];
    for (const bad of ['[{"signature": ', '{}', ...misshapen.map((entry) => JSON.stringify([entry]))]) {
      writeFileSync(cache, bad);
      expect((await load()).prices['my-model']?.input).toBe(5);
      expect(entries()).toMatchObject([{ prices: { 'my-model': { input: 5 } } }]);
    }
  });

  it('a broken models.yaml is an error with its line, never the last good settings', async () => {
    writeFileSync(file, `${table(5)}    other: { input: 1 }\n`);
    await expect(load()).rejects.toThrow(/models\.yaml:6/);
    await expect(load()).rejects.toThrow(/models\.yaml:6/);
  });

  it('another config has its own cache: commands run with different models.yaml files do not evict each other', async () => {
    writeFileSync(file, table(5));
    expect((await load()).prices['my-model']?.input).toBe(5);
    const other = join(dir, 'other.yaml');
    writeFileSync(other, 'endpoints: {}\n');
    expect(await loadPriceSettings({ configPath: other, cwd: dir, env: {}, homeDir: dir }, state)).toEqual({ prices: {}, compare_with: undefined });
    expect(entries().map((e) => e.files)).toEqual([`${other}|${join(dir, 'models.local.yaml')}`, `${file}|${join(dir, 'models.local.yaml')}`]);
    // Both entries answer while their files are unchanged: a changed price in the first config's entry shows it.
    const both = entries();
    both[1]!.prices['my-model']!.input = 6;
    writeFileSync(cache, JSON.stringify(both));
    expect((await load()).prices['my-model']?.input).toBe(6);
    writeFileSync(file, table(7));
    expect((await load()).prices['my-model']?.input).toBe(7);
    expect(entries()).toHaveLength(2);
  });
});
