/**
 * What one line of requests.jsonl says about the backend's speed: prompt
 * tokens per second and how much of the prompt came from the KV cache, from the
 * shim's own reader of the line (shim/request-line.ts). Pure.
 */
import { cacheReuse, generationTokensPerS, promptTokensPerS, readRequestLine } from '../../shim/request-line.js';

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

/** Stats of a model request line; undefined for count_tokens, unreadable lines and failed requests (no usage). */
export function requestStats(line: string): RequestStats | undefined {
  const read = readRequestLine(line); // a line cut by a crash is unreadable: skip it, the next one counts
  if (read.kind !== 'generation' || !read.request.hasUsage) return undefined;
  const r = read.request;
  return {
    status: r.status,
    inputTokens: r.evaluated,
    cachedTokens: r.cached,
    outputTokens: r.output,
    ttfbMs: r.ttfbMs,
    promptTokensPerS: promptTokensPerS(r),
    outputTokensPerS: generationTokensPerS(r),
    cacheReuse: cacheReuse(r),
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
