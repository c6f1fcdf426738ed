import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createConfigLoader } from '../../src/config/cached-loader.js';

describe('createConfigLoader', () => {
  it('answers from memory while the files are unchanged, and sees every edit at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'la-cfg-'));
    const file = join(dir, 'models.yaml');
    writeFileSync(file, 'endpoints:\n  a:\n    base_url: http://a:1\n');
    const load = createConfigLoader({ configPath: file, cwd: dir, env: {}, homeDir: dir });
    const first = await load();
    expect(await load()).toBe(first);

    writeFileSync(file, 'endpoints:\n  b:\n    base_url: http://b:1\n');
    expect((await load()).endpoints.map((e) => e.name)).toEqual(['b']);

    writeFileSync(join(dir, 'models.local.yaml'), 'endpoints:\n  c:\n    base_url: http://c:1\n');
    expect((await load()).endpoints.map((e) => e.name)).toEqual(['b', 'c']);

    rmSync(join(dir, 'models.local.yaml'));
    expect((await load()).endpoints.map((e) => e.name)).toEqual(['b']);

    writeFileSync(file, 'endpoints:\n  b:\n    baseurl: http://b:1\n');
    await expect(load()).rejects.toThrow('unknown key — did you mean base_url?');
    // Still broken: still an error, never the last good config.
    await expect(load()).rejects.toThrow('unknown key');
  });
});
