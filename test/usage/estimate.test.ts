/**
 * The price arithmetic, one token class at a time, against values worked out by
 * hand: the caller's measured tokens and a job's local tokens on the caller's model;
 * which prices a transcript's model name gets (defaults.prices over the published
 * table, a dated id by its undated name), and the line-accurate errors for a bad table.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { pricesOf } from '../../src/config/prices.js';
import { ConfigError } from '../../src/errors.js';
import { callerCostUsd, localCostUsd } from '../../src/usage/estimate.js';
import { makeTempDir, type TempDir } from '../config/temp-dir.js';

const PRICES = { input: 3, cache_write: 3.75, cache_read: 0.3, output: 15 };
const none = { evaluated: 0, cacheWritten: 0, cached: 0, output: 0 };
const noCaller = { input: 0, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, output: 0 };

describe('price classes (hand-computed)', () => {
  it('local input: 2,000,000 evaluated prompt tokens at $3/M = $6', () => {
    expect(localCostUsd({ ...none, evaluated: 2_000_000 }, PRICES)).toBeCloseTo(6, 10);
  });
  it('local cache write, cache read and output: 400k at $3.75/M + 10M at $0.30/M + 50k at $15/M = 1.5 + 3 + 0.75', () => {
    expect(localCostUsd({ evaluated: 0, cacheWritten: 400_000, cached: 10_000_000, output: 50_000 }, PRICES)).toBeCloseTo(5.25, 10);
  });
  it('the caller: 1,000 input at $3/M, 20,000 cache read at $0.30/M, 4,000 5-minute writes at $3.75/M, 50 output at $15/M', () => {
    // 0.003 + 0.006 + 0.015 + 0.00075 = 0.02475
    expect(callerCostUsd({ input: 1000, cacheRead: 20_000, cacheWrite5m: 4000, cacheWrite1h: 0, output: 50 }, PRICES)).toBeCloseTo(0.02475, 12);
  });
  it('the 1-hour cache write: its own price when given, else twice the base input (published rule)', () => {
    expect(callerCostUsd({ ...noCaller, cacheWrite1h: 1_000_000 }, PRICES)).toBeCloseTo(6, 10);
    expect(callerCostUsd({ ...noCaller, cacheWrite1h: 1_000_000 }, { ...PRICES, cache_write_1h: 7 })).toBeCloseTo(7, 10);
  });
});

describe('the prices of the model a transcript names', () => {
  let tmp: TempDir;
  beforeEach(async () => {
    tmp = await makeTempDir();
  });
  afterEach(() => tmp.remove());

  const load = async (yaml: string) => {
    await tmp.write('models.yaml', yaml);
    return loadConfig({ configPath: 'models.yaml', cwd: tmp.path, homeDir: tmp.path, env: {} });
  };

  it('the published table, a dated id by its undated name, and none for a model nobody priced', () => {
    expect(pricesOf('claude-opus-5', {})).toMatchObject({ input: 5, cache_write: 6.25, cache_write_1h: 10, cache_read: 0.5, output: 25 });
    expect(pricesOf('claude-sonnet-5-5-20261001', {})).toMatchObject({ input: 2, output: 10 });
    expect(pricesOf('caller-model', {})).toBeUndefined();
  });

  it('defaults.prices overrides a published model or adds one', async () => {
    const own = await load('defaults:\n  prices:\n    claude-opus-5: { input: 4, cache_write: 5, cache_read: 0.4, output: 20 }\n    caller-model: { input: 1, cache_write: 1.25, cache_write_1h: 2, cache_read: 0.1, output: 5 }\n');
    expect(pricesOf('claude-opus-5', own.defaults.prices)).toEqual({ input: 4, cache_write: 5, cache_read: 0.4, output: 20 });
    expect(pricesOf('caller-model', own.defaults.prices)).toEqual({ input: 1, cache_write: 1.25, cache_write_1h: 2, cache_read: 0.1, output: 5 });
    expect(localCostUsd({ evaluated: 1_000_000, cacheWritten: 0, cached: 0, output: 1_000_000 }, pricesOf('claude-opus-5', own.defaults.prices)!)).toBeCloseTo(24, 10);
  });

  const bad = async (yaml: string): Promise<ConfigError> => {
    const err = await load(yaml).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  };

  it('a bad table is refused with the file, line and key', async () => {
    expect((await bad('defaults:\n  prices:\n    mine:\n      input: 1\n      cache_write: 1.25\n      cache_read: -0.1\n      output: 5\n')).message).toBe(
      'models.yaml:6: defaults.prices.mine.cache_read: expected a number from 0 to 10000, got -0.1',
    );
    expect((await bad('defaults:\n  prices:\n    mine: { input: 1, cache_read: 0.1, output: 5 }\n')).message).toContain(':3: defaults.prices.mine.cache_write:');
    expect((await bad('defaults:\n  prices:\n    mine: { input: 1, cache_write: 1, cache_read: 0.1, output: 5, batch: 1 }\n')).message).toContain(':3: defaults.prices.mine.batch: unknown key');
    expect((await bad('endpoints: {}\ndefaults:\n  compare_with: claude-sonnet-9\n')).message).toBe(
      'models.yaml:3: defaults.compare_with: no prices for "claude-sonnet-9"; known: claude-sonnet-5-5, claude-sonnet-5, claude-opus-5, claude-opus-4-5, claude-sonnet-4-5, claude-haiku-4-5 (add it under defaults.prices)',
    );
  });
});
