/**
 * Server-wide counters before and after a job, and what their difference says:
 * prompt tokens evaluated vs reused, throughput, speculative acceptance.
 * Knows llama.cpp's `llamacpp:*` and vLLM's `vllm:*` names.
 */
import type { Dispatcher } from 'undici';
import type { Endpoint } from '../config/schema.js';
import { httpGet } from './http-get.js';
import { metricTotals, parsePrometheus } from './prometheus.js';

export type MetricsSnapshot = Record<string, number>;

export async function snapshotMetrics(endpoint: Endpoint, dispatcher: Dispatcher | undefined, timeoutMs = 2000): Promise<MetricsSnapshot | undefined> {
  try {
    const res = await httpGet(new URL('/metrics', endpoint.base_url).href, { dispatcher, signal: AbortSignal.timeout(timeoutMs), apiKey: endpoint.apiKey });
    return res.status === 200 ? metricTotals(parsePrometheus(res.text)) : undefined;
  } catch {
    return undefined; // metrics are a bonus: a job never fails because /metrics is off or slow
  }
}

export interface MetricsDeltaReport {
  note: string;
  prompt_tokens_processed?: number;
  prompt_tokens_cached?: number;
  cache_hit_ratio?: number;
  prompt_tokens_per_s?: number;
  generation_tokens_per_s?: number;
  generated_tokens?: number;
  speculative_acceptance?: number;
  counters: Record<string, number>;
}

const round = (n: number, digits = 3): number => Math.round(n * 10 ** digits) / 10 ** digits;
const ratio = (a: number | undefined, b: number | undefined): number | undefined =>
  a !== undefined && b !== undefined && b > 0 ? round(a / b) : undefined;

export function metricsDelta(before: MetricsSnapshot, after: MetricsSnapshot): MetricsDeltaReport {
  const counters: Record<string, number> = {};
  for (const [name, value] of Object.entries(after)) {
    const d = value - (before[name] ?? 0);
    if (d !== 0 && /(_total|_sum|_count)$/.test(name)) counters[name] = round(d, 6);
  }
  const d = (name: string): number | undefined => (name in counters ? counters[name] : name in after ? 0 : undefined);
  const note = 'Counters are server-wide: jobs or other clients running at the same time share this delta.';

  if (Object.keys(after).some((k) => k.startsWith('llamacpp:'))) {
    const processed = d('llamacpp:prompt_tokens_total');
    const cached = d('llamacpp:prompt_tokens_cached_total');
    const drafted = d('llamacpp:spec_decode_num_draft_tokens_total');
    return {
      note,
      prompt_tokens_processed: processed,
      prompt_tokens_cached: cached,
      cache_hit_ratio: processed !== undefined && cached !== undefined ? ratio(cached, cached + processed) : undefined,
      prompt_tokens_per_s: ratio(processed, d('llamacpp:prompt_seconds_total')),
      generated_tokens: d('llamacpp:tokens_predicted_total'),
      generation_tokens_per_s: ratio(d('llamacpp:tokens_predicted_total'), d('llamacpp:tokens_predicted_seconds_total')),
      speculative_acceptance: drafted ? ratio(d('llamacpp:spec_decode_num_accepted_tokens_total'), drafted) : undefined,
      counters,
    };
  }
  const prompt = d('vllm:prompt_tokens_total');
  const cached = d('vllm:prefix_cache_hits_total') ?? d('vllm:prompt_tokens_cached_total');
  const drafted = d('vllm:spec_decode_num_draft_tokens_total');
  return {
    note,
    prompt_tokens_processed: prompt !== undefined && cached !== undefined ? prompt - cached : prompt,
    prompt_tokens_cached: cached,
    cache_hit_ratio: ratio(d('vllm:prefix_cache_hits_total'), d('vllm:prefix_cache_queries_total')),
    generated_tokens: d('vllm:generation_tokens_total'),
    prompt_tokens_per_s: ratio(prompt, d('vllm:request_prefill_time_seconds_sum')),
    generation_tokens_per_s: ratio(d('vllm:generation_tokens_total'), d('vllm:request_decode_time_seconds_sum')),
    speculative_acceptance: drafted ? ratio(d('vllm:spec_decode_num_accepted_tokens_total'), drafted) : undefined,
    counters,
  };
}
