/**
 * What one line of requests.jsonl says about the backend's speed: prompt
 * tokens per second and how much of the prompt came from the KV cache. Pure.
 */

export interface RequestStats {
  readonly status: number;
  /** Prompt tokens the server evaluated (not cached). */
  readonly inputTokens: number;
  readonly cachedTokens: number;
  readonly outputTokens: number;
  readonly ttfbMs: number | undefined;
  /**
   * Evaluated prompt tokens / time to first byte. The first byte of a llama.cpp or
   * vLLM stream comes with the first generated token, so this is prefill speed
   * (plus any queueing: a busy server shows lower numbers).
   */
  readonly promptTokensPerS: number | undefined;
  /** Generated tokens / (total − first byte): decode speed. */
  readonly outputTokensPerS: number | undefined;
  /** cached / (cached + evaluated): the share of the prompt the server did not recompute. */
  readonly cacheReuse: number | undefined;
}

interface LoggedRequest {
  path?: unknown;
  status?: unknown;
  ttfb_ms?: unknown;
  total_ms?: unknown;
  usage?: { input_tokens?: unknown; output_tokens?: unknown; cache_read_input_tokens?: unknown } | null;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Stats of a model request line; undefined for count_tokens, unparsable lines and failed requests (no usage). */
export function requestStats(line: string): RequestStats | undefined {
  let entry: LoggedRequest;
  try {
    entry = JSON.parse(line) as LoggedRequest; // every field is read as unknown and checked by num()
  } catch {
    return undefined; // a line cut by a crash: skip it, the next one counts
  }
  if (entry.path !== '/v1/messages' || !entry.usage) return undefined;
  const input = num(entry.usage.input_tokens) ?? 0;
  const cached = num(entry.usage.cache_read_input_tokens) ?? 0;
  const output = num(entry.usage.output_tokens) ?? 0;
  const ttfb = num(entry.ttfb_ms);
  const total = num(entry.total_ms);
  const decodeMs = ttfb !== undefined && total !== undefined ? total - ttfb : undefined;
  return {
    status: num(entry.status) ?? 0,
    inputTokens: input,
    cachedTokens: cached,
    outputTokens: output,
    ttfbMs: ttfb,
    promptTokensPerS: ttfb !== undefined && ttfb > 0 && input > 0 ? input / (ttfb / 1000) : undefined,
    outputTokensPerS: decodeMs !== undefined && decodeMs > 0 && output > 1 ? output / (decodeMs / 1000) : undefined,
    cacheReuse: input + cached > 0 ? cached / (input + cached) : undefined,
  };
}

/** Running totals over a job's model requests; the record only learns the totals when the session ends. */
export interface RequestTotals {
  readonly requests: number;
  readonly inputTokens: number;
  readonly cachedTokens: number;
  readonly outputTokens: number;
  readonly last: RequestStats | undefined;
}

export const NO_REQUESTS: RequestTotals = { requests: 0, inputTokens: 0, cachedTokens: 0, outputTokens: 0, last: undefined };

export function addRequests(totals: RequestTotals, lines: readonly string[]): RequestTotals {
  let next = totals;
  for (const line of lines) {
    const stats = requestStats(line);
    if (stats === undefined) continue;
    next = {
      requests: next.requests + 1,
      inputTokens: next.inputTokens + stats.inputTokens,
      cachedTokens: next.cachedTokens + stats.cachedTokens,
      outputTokens: next.outputTokens + stats.outputTokens,
      last: stats,
    };
  }
  return next;
}
