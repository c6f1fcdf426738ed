/**
 * The savings estimate's arithmetic. Both sides are estimates and lean the same
 * way, against the savings:
 * - what the local work would have cost on Anthropic: each token class at its own
 *   price as the backend reported it (evaluated prompt tokens at the base input
 *   price, though Claude Code on Anthropic would mostly pay the 5-minute cache
 *   write for them; cached at cache read; output at output);
 * - what delegating cost the caller: the tool results it read, at the cache-write
 *   price (Claude Code writes each new result into its prompt cache), and the
 *   arguments it wrote (the brief) at the output price, counting bytes as tokens
 *   by CALLER_BYTES_PER_TOKEN. Later turns re-reading those results from the cache
 *   are not counted.
 */
import { DEFAULT_COMPARE_WITH, PRICES_AS_OF, PRICES_SOURCE, PUBLISHED_PRICES, type ModelPrices } from '../config/prices.js';
import type { Defaults } from '../config/schema.js';
import type { TokenCounts } from './job-usage.js';

/**
 * Bytes per token for what the caller read and wrote: Anthropic quotes about 4
 * characters a token for English prose; tool results are JSON and code, which
 * tokenise denser, and counting high keeps the cost of delegating from being understated.
 */
export const CALLER_BYTES_PER_TOKEN = 3;

export const callerTokens = (bytes: number): number => Math.ceil(bytes / CALLER_BYTES_PER_TOKEN);

export interface Comparison {
  readonly model: string;
  readonly prices: ModelPrices;
  /** Where the model came from: the user's setting or our default. */
  readonly chosenBy: 'defaults.compare_with' | 'default';
  /** Where the prices came from. */
  readonly pricesFrom: 'defaults.prices' | `published ${string}`;
  readonly sourceUrl: string;
}

/** The model and prices to compare with; the config schema has already refused a compare_with without prices. */
export function comparison(defaults: Pick<Defaults, 'prices' | 'compare_with'>): Comparison {
  const model = defaults.compare_with ?? DEFAULT_COMPARE_WITH;
  const own = defaults.prices[model];
  const prices = own ?? PUBLISHED_PRICES[model] ?? PUBLISHED_PRICES[DEFAULT_COMPARE_WITH];
  if (prices === undefined) throw new Error(`no prices for ${model}`); // unreachable: the default is in the table
  return {
    model,
    prices,
    chosenBy: defaults.compare_with === undefined ? 'default' : 'defaults.compare_with',
    pricesFrom: own === undefined ? `published ${PRICES_AS_OF}` : 'defaults.prices',
    sourceUrl: PRICES_SOURCE,
  };
}

const PER_MILLION = 1_000_000;

export function anthropicCostUsd(tokens: TokenCounts, p: ModelPrices): number {
  return (tokens.evaluated * p.input + tokens.cacheWritten * p.cache_write + tokens.cached * p.cache_read + tokens.output * p.output) / PER_MILLION;
}

/** What the caller's reading and writing cost, from the tokens `callerTokens` counts of each. */
export function callerTokensCostUsd(readTokens: number, writtenTokens: number, p: ModelPrices): number {
  return (readTokens * p.cache_write + writtenTokens * p.output) / PER_MILLION;
}
