/**
 * Anthropic's published per-million-token prices, for the usage report's savings
 * estimate: the one place they live. `defaults.prices` in models.yaml adds or
 * replaces entries; `defaults.compare_with` picks the model to compare with.
 *
 * Source: https://platform.claude.com/docs/en/about-claude/pricing ("Model pricing":
 * base input, 5m cache writes, cache hits, output) and the model overview pages
 * (https://platform.claude.com/docs/en/models/sonnet-5-5/overview), read 2026-12-02.
 */
export const PRICES_AS_OF = '2026-12-02';
export const PRICES_SOURCE = 'https://platform.claude.com/docs/en/about-claude/pricing';

/** USD per million tokens. `cache_write` is the 5-minute write, the one Claude Code uses. (Checked in models.yaml by schema.ts.) */
export interface ModelPrices {
  readonly input: number;
  readonly cache_write: number;
  readonly cache_read: number;
  readonly output: number;
}

export const PUBLISHED_PRICES: Readonly<Record<string, ModelPrices>> = {
  'claude-sonnet-5-5': { input: 2, cache_write: 2.5, cache_read: 0.2, output: 10 },
  'claude-sonnet-5': { input: 2, cache_write: 2.5, cache_read: 0.2, output: 10 },
  'claude-opus-5': { input: 5, cache_write: 6.25, cache_read: 0.5, output: 25 },
  'claude-opus-4-5': { input: 5, cache_write: 6.25, cache_read: 0.5, output: 25 },
  'claude-sonnet-4-5': { input: 3, cache_write: 3.75, cache_read: 0.3, output: 15 },
  'claude-haiku-4-5': { input: 1, cache_write: 1.25, cache_read: 0.1, output: 5 },
};

/**
 * What the report compares with unless `defaults.compare_with` says otherwise: the
 * current Sonnet, Claude Code's usual model. localagents cannot see which model the
 * calling Claude runs (MCP does not say), so the report names this and how to change it.
 */
export const DEFAULT_COMPARE_WITH = 'claude-sonnet-5-5';
