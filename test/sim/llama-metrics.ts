/**
 * llama.cpp `/metrics` (Prometheus text): the counters the simulator moves and
 * the metric set of each build (b9553: 11 names; the August 2026 build adds
 * prompt_tokens_cached_total and three speculative-decoding counters).
 */
import type { LlamaBuild } from './types.js';

type Row = readonly [name: string, type: 'counter' | 'gauge', help: string, value: number];

export class LlamaMetrics {
  promptTokens = 0;
  promptTokensCached = 0;
  promptSeconds = 0;
  tokensPredicted = 0;
  tokensPredictedSeconds = 0;
  nDecode = 0;
  nTokensMax = 0;
  private busySlotsSum = 0;
  private busySamples = 0;

  recordPrompt(evaluated: number, cached: number, seconds: number): void {
    this.promptTokens += evaluated;
    this.promptTokensCached += cached;
    this.promptSeconds += seconds;
  }

  recordGeneration(tokens: number, seconds: number, sequenceLength: number, busySlots: number): void {
    this.tokensPredicted += tokens;
    this.tokensPredictedSeconds += seconds;
    this.nDecode += tokens;
    this.nTokensMax = Math.max(this.nTokensMax, sequenceLength);
    this.busySlotsSum += busySlots;
    this.busySamples++;
  }

  render(build: LlamaBuild, processing: number, deferred: number): string {
    const rate = (n: number, s: number): number => (s > 0 ? Math.round((n / s) * 100) / 100 : 0);
    const aug = build !== 'b9553';
    const rows: Row[] = [
      ['prompt_tokens_total', 'counter', 'Number of prompt tokens processed, excluding cached tokens', this.promptTokens],
    ];
    if (aug) rows.push(['prompt_tokens_cached_total', 'counter', 'Number of prompt tokens reused from the cache', this.promptTokensCached]);
    rows.push(
      ['prompt_seconds_total', 'counter', 'Total time spent processing prompts', round(this.promptSeconds)],
      ['tokens_predicted_total', 'counter', 'Number of generation tokens processed', this.tokensPredicted],
      ['tokens_predicted_seconds_total', 'counter', 'Total time spent generating tokens', round(this.tokensPredictedSeconds)],
      ['n_decode_total', 'counter', 'Total number of llama_decode() calls, excluding speculative decoding and multimodal decoding', this.nDecode],
      ['n_tokens_max', 'counter', 'Largest observed sequence length (prompt + generation)', this.nTokensMax],
    );
    if (aug) {
      rows.push(
        ['spec_decode_num_draft_tokens_total', 'counter', 'Speculative: Total draft tokens generated', 0],
        ['spec_decode_num_accepted_tokens_total', 'counter', 'Speculative: Total draft tokens accepted by the target model', 0],
        ['spec_decode_num_drafts_total', 'counter', 'Speculative: Total speculative decoding verification steps', 0],
      );
    }
    const busyPerDecode = this.busySamples > 0 ? round(this.busySlotsSum / this.busySamples) : 0;
    rows.push(
      ['prompt_tokens_seconds', 'gauge', 'Average prompt throughput in tokens/s', rate(this.promptTokens, this.promptSeconds)],
      ['predicted_tokens_seconds', 'gauge', 'Average generation throughput in tokens/s', rate(this.tokensPredicted, this.tokensPredictedSeconds)],
      ['requests_processing', 'gauge', 'Number of requests processing', processing],
      ['requests_deferred', 'gauge', 'Number of requests deferred', deferred],
      ['n_busy_slots_per_decode', 'gauge', 'Average number of busy slots per llama_decode() call', busyPerDecode],
    );
    return rows
      .map(([name, type, help, value]) => `# HELP llamacpp:${name} ${help}\n# TYPE llamacpp:${name} ${type}\nllamacpp:${name} ${value}\n`)
      .join('');
  }
}

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
