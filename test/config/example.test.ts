/**
 * models.example.yaml is the documentation users copy: it must load cleanly and
 * show every key the schema accepts, so a new key cannot ship undocumented.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { configFileSchema, defaultsSchema, endpointSchema, modelSchema } from '../../src/config/schema.js';

const EXAMPLE = fileURLToPath(new URL('../../models.example.yaml', import.meta.url));

type Section = Record<string, Record<string, unknown>>;

describe('models.example.yaml', () => {
  it('loads cleanly', async () => {
    const config = await loadConfig({ configPath: EXAMPLE, cwd: '/', homeDir: '/nonexistent', env: { VLLM_API_KEY: 'sk-test' } });
    expect(config.endpoints.map((e) => [e.name, e.backend])).toEqual([
      ['gpu-box', 'llama.cpp'],
      ['vllm-rack', 'vllm'],
      ['laptop', 'other'],
    ]);
    expect(config.endpoints.find((e) => e.name === 'vllm-rack')?.apiKey).toBe('sk-test');
    expect(config.models.map((m) => [m.name, m.endpoint])).toEqual([
      ['qwen3-coder-30b', 'gpu-box'],
      ['glm-4.6', 'vllm-rack'],
    ]);
    expect(config.defaults.model).toBe('qwen3-coder-30b');
  });

  it('uses every key of the schema at least once', async () => {
    const data = parse(await readFile(EXAMPLE, 'utf8')) as Record<string, unknown>; // shape checked by the test above
    const used = (section: string): Set<string> =>
      new Set(Object.values((data[section] ?? {}) as Section).flatMap((entry) => Object.keys(entry)));
    expect(Object.keys(data).sort()).toEqual(Object.keys(configFileSchema.shape).sort());
    expect([...used('endpoints')].sort()).toEqual(Object.keys(endpointSchema.shape).sort());
    expect([...used('models')].sort()).toEqual(Object.keys(modelSchema.shape).sort());
    // A key with no sensible example value (a path on the user's machine) is shown commented out.
    const commented = [...(await readFile(EXAMPLE, 'utf8')).matchAll(/^ {2}# ([a-z_]+): /gm)].map((m) => m[1] ?? '');
    const defaultsShown = [...Object.keys(data['defaults'] as Record<string, unknown>), ...commented.filter((k) => k in defaultsSchema.shape)];
    expect(defaultsShown.sort()).toEqual(Object.keys(defaultsSchema.shape).sort());
  });

  it('mentions the llama-server flags localagents relies on', async () => {
    const text = await readFile(EXAMPLE, 'utf8');
    for (const flag of ['--jinja', '--slots', '--metrics']) expect(text).toContain(flag);
  });
});
