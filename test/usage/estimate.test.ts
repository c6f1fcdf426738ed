/**
 * The savings arithmetic, one price class at a time, against values worked out
 * by hand; models.yaml's defaults.prices and defaults.compare_with, and the
 * line-accurate errors for a bad table.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';
import { anthropicCostUsd, callerTokens, callerTokensCostUsd, comparison } from '../../src/usage/estimate.js';
import { makeTempDir, type TempDir } from '../config/temp-dir.js';

const PRICES = { input: 3, cache_write: 3.75, cache_read: 0.3, output: 15 };
const none = { evaluated: 0, cacheWritten: 0, cached: 0, output: 0 };

describe('price classes (hand-computed)', () => {
  it('input: 2,000,000 evaluated prompt tokens at $3/M = $6', () => {
    expect(anthropicCostUsd({ ...none, evaluated: 2_000_000 }, PRICES)).toBeCloseTo(6, 10);
  });
  it('cache write: 400,000 tokens at $3.75/M = $1.50', () => {
    expect(anthropicCostUsd({ ...none, cacheWritten: 400_000 }, PRICES)).toBeCloseTo(1.5, 10);
  });
  it('cache read: 10,000,000 cached tokens at $0.30/M = $3', () => {
    expect(anthropicCostUsd({ ...none, cached: 10_000_000 }, PRICES)).toBeCloseTo(3, 10);
  });
  it('output: 50,000 tokens at $15/M = $0.75', () => {
    expect(anthropicCostUsd({ ...none, output: 50_000 }, PRICES)).toBeCloseTo(0.75, 10);
  });
  it('all four together add up: 6 + 1.5 + 3 + 0.75 = $11.25', () => {
    expect(anthropicCostUsd({ evaluated: 2_000_000, cacheWritten: 400_000, cached: 10_000_000, output: 50_000 }, PRICES)).toBeCloseTo(11.25, 10);
  });
  it('the caller: 30,001 result bytes = 10,001 tokens at the cache-write $3.75/M, 3,000 argument bytes = 1,000 tokens at output $15/M', () => {
    expect(callerTokens(30_001)).toBe(10_001);
    // 10,001 × 3.75 / 1e6 = 0.03750375; 1,000 × 15 / 1e6 = 0.015
    expect(callerTokensCostUsd(callerTokens(30_001), callerTokens(3000), PRICES)).toBeCloseTo(0.05250375, 12);
  });
});

describe('the comparison model and its prices', () => {
  let tmp: TempDir;
  beforeEach(async () => {
    tmp = await makeTempDir();
  });
  afterEach(() => tmp.remove());

  const load = async (yaml: string) => {
    await tmp.write('models.yaml', yaml);
    return loadConfig({ configPath: 'models.yaml', cwd: tmp.path, homeDir: tmp.path, env: {} });
  };

  it('without settings: the published Sonnet 5.5 prices, named as the default', async () => {
    const config = await load('endpoints: {}\n');
    expect(comparison(config.defaults)).toMatchObject({ model: 'claude-sonnet-5-5', prices: { input: 2, cache_write: 2.5, cache_read: 0.2, output: 10 }, chosenBy: 'default' });
  });

  it('defaults.compare_with picks a published model; defaults.prices overrides or adds one', async () => {
    expect(comparison((await load('defaults:\n  compare_with: claude-opus-5\n')).defaults)).toMatchObject({ model: 'claude-opus-5', prices: { input: 5, output: 25 }, chosenBy: 'defaults.compare_with' });
    const own = await load('defaults:\n  compare_with: claude-opus-5\n  prices:\n    claude-opus-5: { input: 4, cache_write: 5, cache_read: 0.4, output: 20 }\n');
    expect(comparison(own.defaults)).toMatchObject({ prices: { input: 4, cache_write: 5, cache_read: 0.4, output: 20 }, pricesFrom: 'defaults.prices' });
    expect(anthropicCostUsd({ evaluated: 1_000_000, cacheWritten: 0, cached: 0, output: 1_000_000 }, comparison(own.defaults).prices)).toBeCloseTo(24, 10);
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
