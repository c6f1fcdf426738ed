/** Speed and cache numbers of the live display, from requests.jsonl lines as the shim writes them. */
import { describe, expect, it } from 'vitest';
import { lastRequest, requestStats } from '../../src/jobs/tracking/request-stats.js';

// Shaped like the shim's RequestLogEntry (src/shim/request-log/request-log.ts).
const line = (over: Record<string, unknown>): string =>
  JSON.stringify({
    t: '2026-11-29T11:00:00.000Z', path: '/v1/messages', method: 'POST', model: 'qwen', messages: 3, tools: 12, stream: true,
    request_bytes: 50_000, status: 200, ttfb_ms: 500, total_ms: 1500,
    usage: { input_tokens: 1000, cache_read_input_tokens: 9000, output_tokens: 101 },
    folded_system_messages: 1, rewrites: [], ...over,
  });

describe('requestStats', () => {
  it('prompt tok/s = evaluated input tokens / time to first byte; reuse = cached / (cached + evaluated)', () => {
    const s = requestStats(line({}));
    expect(s).toMatchObject({ status: 200, inputTokens: 1000, cachedTokens: 9000, outputTokens: 101, ttfbMs: 500 });
    expect(s?.promptTokensPerS).toBe(2000);
    expect(s?.cacheReuse).toBeCloseTo(0.9);
    expect(s?.outputTokensPerS).toBeCloseTo(101);
  });

  it('skips count_tokens, failed requests without usage, and a line cut short', () => {
    expect(requestStats(line({ path: '/v1/messages/count_tokens' }))).toBeUndefined();
    expect(requestStats(line({ status: 500, usage: undefined, ttfb_ms: undefined }))).toBeUndefined();
    expect(requestStats('{"path":"/v1/mess')).toBeUndefined();
  });

  it('leaves speeds unknown rather than dividing by zero', () => {
    const s = requestStats(line({ ttfb_ms: 0, total_ms: 0 }));
    expect(s?.promptTokensPerS).toBeUndefined();
    expect(s?.outputTokensPerS).toBeUndefined();
  });
});

describe('lastRequest', () => {
  it('keeps the last model request with usage, skipping count_tokens and failed ones', () => {
    const first = lastRequest(undefined, [line({})]);
    expect(first?.inputTokens).toBe(1000);
    const next = lastRequest(first, [line({ usage: { input_tokens: 10, cache_read_input_tokens: 0, output_tokens: 5 } }), line({ path: '/v1/messages/count_tokens' }), line({ status: 500, usage: undefined })]);
    expect(next?.inputTokens).toBe(10);
    expect(lastRequest(next, [])).toBe(next);
  });
});
