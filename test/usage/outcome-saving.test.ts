/**
 * A job whose work was lost (discarded, reverted, followed up) saved nothing: its
 * local tokens are not priced as saved and its caller cost is a loss, as for a job
 * that failed; a kept or unknown one is priced as before.
 */
import { describe, expect, it } from 'vitest';
import { pricesOf } from '../../src/config/prices.js';
import { callerCostUsd, localCostUsd } from '../../src/usage/estimate.js';
import type { JobUsage } from '../../src/usage/job-usage.js';
import { createUsageTally } from '../../src/usage/tally.js';

const CALLER = 'claude-sonnet-5-5';

function job(id: string, outcome: JobUsage['outcome']): JobUsage {
  const tokens = { input: 100, cacheRead: 90_000, cacheWrite5m: 2_000, cacheWrite1h: 0, output: 300 };
  return {
    id, status: 'succeeded', createdAt: '2026-12-05T03:00:00.000Z', model: 'qwen', endpoint: 'gpu', repo: '/r', turns: 4, requests: 4,
    tokens: { evaluated: 40_000, cacheWritten: 0, cached: 200_000, output: 6_000 }, gpuMs: 9_000, promptTokensPerS: [], generationTokensPerS: [],
    caller: { calls: 2, cost: { model: CALLER, turns: 2, tokens, transcript: '/t.jsonl', shared: false }, settled: true },
    verify: undefined, outcome, unreadableLines: 0, halfWritten: false,
  };
}

describe('net saving by outcome', () => {
  it('prices a kept or unknown job as saved, a lost one as a loss of its caller cost', () => {
    const prices = pricesOf(CALLER, {})!;
    const tally = createUsageTally('job', {});
    for (const [id, outcome] of [['20261205-030000-aaaaaaaaaaaa', 'kept'], ['20261205-030000-bbbbbbbbbbbb', 'lost'], ['20261205-030000-cccccccccccc', 'unknown']] as const) tally.add(job(id, outcome));
    const [kept, lost, unknown] = tally.rows();
    const caller = callerCostUsd({ input: 100, cacheRead: 90_000, cacheWrite5m: 2_000, cacheWrite1h: 0, output: 300 }, prices);
    const local = localCostUsd({ evaluated: 40_000, cacheWritten: 0, cached: 200_000, output: 6_000 }, prices);
    expect(kept!.priced).toEqual({ callerUsd: caller, localUsd: local, netUsd: local - caller });
    expect(unknown!.priced).toEqual({ callerUsd: caller, localUsd: local, netUsd: local - caller });
    expect(lost!.priced).toEqual({ callerUsd: caller, localUsd: 0, netUsd: -caller });
    expect([kept!.outcomes, lost!.outcomes, unknown!.outcomes]).toEqual([{ kept: 1, lost: 0, unknown: 0 }, { kept: 0, lost: 1, unknown: 0 }, { kept: 0, lost: 0, unknown: 1 }]);
    expect(tally.total().outcomes).toEqual({ kept: 1, lost: 1, unknown: 1 });
  });
});
