/**
 * What one line of requests.jsonl says about the backend's speed: prompt
 * tokens per second and how much of the prompt came from the KV cache, from the
 * shim's own reader of the line (shim/request-log/request-line.ts). Pure. The job's token
 * totals are on its record (the run tracker sums them as requests end).
 */
import { cacheReuse, generationTokensPerS, promptTokensPerS, readRequestLine } from '../../shim/request-log/request-line.js';

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

/** The last model request among `lines` that has usage, else `previous`: what the live status area shows the speed of. */
export function lastRequest(previous: RequestStats | undefined, lines: readonly string[]): RequestStats | undefined {
  let last = previous;
  for (const line of lines) last = requestStats(line) ?? last;
  return last;
}
