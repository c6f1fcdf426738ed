/**
 * Anthropic's published per-million-token prices, for the usage report: what a job
 * cost its caller, and what its local tokens would have cost on the caller's model
 * (the model the caller's transcript names). The one place they live; `defaults.prices`
 * in models.yaml adds or replaces entries.
 *
 * Source: https://platform.claude.com/docs/en/about-claude/pricing ("Model pricing":
 * base input, 5m cache writes, cache hits, output) and the model overview pages
 * (https://platform.claude.com/docs/en/models/sonnet-5-5/overview), read 2026-12-02.
 */
export const PRICES_AS_OF = '2026-12-02';
export const PRICES_SOURCE = 'https://platform.claude.com/docs/en/about-claude/pricing';

/**
 * USD per million tokens. `cache_write` is the 5-minute write, `cache_write_1h` the 1-hour one (published as
 * twice the base input price, which stands in where a models.yaml entry leaves it out). (Checked by schema.ts.)
 */
export interface ModelPrices {
  readonly input: number;
  readonly cache_write: number;
  readonly cache_write_1h?: number | undefined;
  readonly cache_read: number;
  readonly output: number;
}

/** The 1-hour cache write: the entry's own, else the published rule (2x base input). */
export const oneHourWrite = (p: ModelPrices): number => p.cache_write_1h ?? 2 * p.input;

export const PUBLISHED_PRICES: Readonly<Record<string, ModelPrices>> = {
  'claude-sonnet-5-5': { input: 2, cache_write: 2.5, cache_write_1h: 4, cache_read: 0.2, output: 10 },
  'claude-sonnet-5': { input: 2, cache_write: 2.5, cache_write_1h: 4, cache_read: 0.2, output: 10 },
  'claude-opus-5': { input: 5, cache_write: 6.25, cache_write_1h: 10, cache_read: 0.5, output: 25 },
  'claude-opus-4-5': { input: 5, cache_write: 6.25, cache_write_1h: 10, cache_read: 0.5, output: 25 },
  'claude-sonnet-4-5': { input: 3, cache_write: 3.75, cache_write_1h: 6, cache_read: 0.3, output: 15 },
  'claude-haiku-4-5': { input: 1, cache_write: 1.25, cache_write_1h: 2, cache_read: 0.1, output: 5 },
};

/**
 * The prices of a model as a transcript names it: the user's `defaults.prices` entry, else the published one;
 * a dated id (`claude-sonnet-5-5-20261001`) falls back to its undated name. Undefined when neither knows it.
 */
export function pricesOf(model: string, own: Readonly<Record<string, ModelPrices>>): ModelPrices | undefined {
  const undated = model.replace(/-\d{8}$/, '');
  return own[model] ?? PUBLISHED_PRICES[model] ?? own[undated] ?? PUBLISHED_PRICES[undated];
}
