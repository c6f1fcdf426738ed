/**
 * The two settings the usage figures need from models.yaml (defaults.prices and
 * defaults.compare_with), for `localagents statusline` (run every few hundred ms)
 * and `usage`. Loading models.yaml takes the YAML parser and the zod schemas,
 * several times a bare Node start (BENCHMARKS.md, part 9), so the settings last
 * loaded are kept in <state dir>/price-settings/settings.json, one entry per pair of files
 * (the {@link MAX_ENTRIES} used last, so commands run with different configs do not
 * evict each other), under the signature of the files they came from (path, inode,
 * size, mtime and ctime of models.yaml and models.local.yaml) and used only while
 * both files still have that signature. Any process may replace it (atomically,
 * 0600); an entry that is damaged, foreign or stale is ignored and replaced by the
 * next full load.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { privateDir, writePrivateFile } from '../coord/private-files.js';
import { readRegularFile } from '../coord/regular-file.js';
import { checkShape, type Shape } from '../json-shape.js';
import { fileSignature } from './file-signature.js';
import type { LoadConfigOptions } from './load.js';
import { locateConfig } from './locate.js';
import type { Defaults } from './schema.js';

export type PriceSettings = Pick<Defaults, 'prices' | 'compare_with'>;

/** For views that must not fail on a broken models.yaml (doctor reports it): the published prices and the default model. */
export const NO_PRICE_SETTINGS: PriceSettings = { prices: {}, compare_with: undefined };

/** The price settings of a loaded config, or none when models.yaml is broken. */
export const priceSettingsOf = (load: () => Promise<{ readonly defaults: PriceSettings }>): Promise<PriceSettings> =>
  load().then((c) => c.defaults, () => NO_PRICE_SETTINGS);

const CACHE_DIR = 'price-settings';
/** Far beyond any price tables a person writes. */
const MAX_CACHE_BYTES = 1024 * 1024;
const MAX_ENTRIES = 16;

interface Cached {
  /** Which files: models.yaml's path (or -) and its sidecar's. */
  readonly files: string;
  readonly signature: string;
  readonly prices: PriceSettings['prices'];
  readonly compare_with?: string;
}

const price: Shape = { type: 'number', minimum: 0 };
const cachedShape: Shape = {
  type: 'object',
  properties: {
    files: { type: 'string' },
    signature: { type: 'string' },
    prices: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        properties: { input: price, cache_write: price, cache_write_1h: price, cache_read: price, output: price },
        required: ['input', 'cache_write', 'cache_read', 'output'],
      },
    },
    compare_with: { type: 'string' },
  },
  required: ['files', 'signature', 'prices'],
};

/** The entries of the cache that are whole; a damaged one is dropped, the others kept. */
async function readCache(file: string): Promise<Cached[]> {
  try {
    const json: unknown = JSON.parse((await readRegularFile(file, { maxBytes: MAX_CACHE_BYTES })).toString('utf8'));
    if (!Array.isArray(json)) return [];
    return json.flatMap((entry) => {
      const checked = checkShape<Cached>(entry, cachedShape);
      return checked.ok ? [checked.value] : [];
    });
  } catch {
    return [];
  }
}

/** The price settings, from the cache while models.yaml is unchanged; a broken models.yaml throws its ConfigError. */
export async function loadPriceSettings(opts: LoadConfigOptions, stateDir: string): Promise<PriceSettings> {
  const location = await locateConfig({ ...opts, homeDir: opts.homeDir ?? homedir() });
  const signature = `${await fileSignature(location.path)}|${await fileSignature(location.sidecarPath)}`;
  const files = `${location.path ?? '-'}|${location.sidecarPath}`;
  const dir = join(stateDir, CACHE_DIR);
  const file = join(dir, 'settings.json');
  const entries = await readCache(file);
  const cached = entries.find((e) => e.files === files);
  if (cached?.signature === signature) return { prices: cached.prices, compare_with: cached.compare_with };
  const { loadConfig } = await import('./load.js');
  const { defaults } = await loadConfig(opts);
  const settings: Cached = { files, signature, prices: defaults.prices, ...(defaults.compare_with === undefined ? {} : { compare_with: defaults.compare_with }) };
  const kept = [settings, ...entries.filter((e) => e.files !== files)].slice(0, MAX_ENTRIES);
  // Only a cache: a state directory that cannot take it costs the next run a full load, nothing else.
  await privateDir(dir)
    .then(() => writePrivateFile(file, `${JSON.stringify(kept)}\n`))
    .catch(() => undefined);
  return { prices: defaults.prices, compare_with: defaults.compare_with };
}
