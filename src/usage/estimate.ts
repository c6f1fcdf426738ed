/**
 * Prices applied to measured tokens, at report time (so a change to models.yaml's
 * defaults.prices applies to every job on record):
 * - what a job cost its caller: the caller's own turns (src/usage/transcripts), each
 *   token class at its price on the caller's model: input, cache read, the 5-minute
 *   and the 1-hour cache write, output;
 * - what the job's local tokens would have cost on the caller's model: evaluated
 *   prompt tokens at the base input price, tokens a backend wrote to its cache at the
 *   5-minute write, cached at cache read, output at output.
 */
import { oneHourWrite, type ModelPrices } from '../config/prices.js';
import type { TokenCounts } from './job-usage.js';
import type { CallerTokens } from './transcripts/transcript-turns.js';

const PER_MILLION = 1_000_000;

export function localCostUsd(tokens: TokenCounts, p: ModelPrices): number {
  return (tokens.evaluated * p.input + tokens.cacheWritten * p.cache_write + tokens.cached * p.cache_read + tokens.output * p.output) / PER_MILLION;
}

export function callerCostUsd(t: CallerTokens, p: ModelPrices): number {
  return (t.input * p.input + t.cacheRead * p.cache_read + t.cacheWrite5m * p.cache_write + t.cacheWrite1h * oneHourWrite(p) + t.output * p.output) / PER_MILLION;
}
