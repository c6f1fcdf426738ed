/**
 * The vLLM engine side: at most `maxRunning` requests run, the rest wait;
 * automatic prefix caching in 16-token blocks across all earlier prompts; and
 * the Prometheus counters/gauges behind /metrics (labels model_name, engine).
 */
import { lcpChars, CHARS_PER_TOKEN } from './prompt-text.js';

const BLOCK_TOKENS = 16;
const REMEMBERED_PROMPTS = 64;

export class VllmEngine {
  running = 0;
  private runningTokens = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly prompts: string[] = [];
  promptTokens = 0;
  cachedTokens = 0;
  prefixQueries = 0;
  generationTokens = 0;
  readonly finished = { stop: 0, length: 0, abort: 0 };

  constructor(
    private readonly maxRunning: number,
    private readonly maxModelLen: number,
  ) {}

  get waitingCount(): number {
    return this.waiting.length;
  }

  /** Resolves true once the request may run; false when `signal` aborts while waiting. */
  acquire(signal: AbortSignal): Promise<boolean> {
    if (this.waiting.length === 0 && this.running < this.maxRunning) {
      this.running++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const go = (): void => {
        this.running++;
        resolve(true);
      };
      this.waiting.push(go);
      signal.addEventListener(
        'abort',
        () => {
          const i = this.waiting.indexOf(go);
          if (i >= 0) {
            this.waiting.splice(i, 1);
            resolve(false);
          }
        },
        { once: true },
      );
    });
  }

  release(): void {
    this.running--;
    this.waiting.shift()?.();
  }

  /** Prefix-cache lookup: whole 16-token blocks shared with any remembered prompt, never the last token. */
  lookup(prompt: string, promptTokens: number): number {
    let best = 0;
    for (const p of this.prompts) best = Math.max(best, lcpChars(p, prompt));
    const shared = Math.min(Math.floor(best / CHARS_PER_TOKEN), promptTokens - 1);
    return Math.max(0, Math.floor(shared / BLOCK_TOKENS) * BLOCK_TOKENS);
  }

  recordPrefill(prompt: string, promptTokens: number, cached: number): void {
    this.prompts.push(prompt);
    if (this.prompts.length > REMEMBERED_PROMPTS) this.prompts.shift();
    this.promptTokens += promptTokens;
    this.cachedTokens += cached;
    this.prefixQueries += promptTokens;
    this.runningTokens += promptTokens;
  }

  recordFinish(promptTokens: number, generated: number, reason: 'stop' | 'length' | 'abort'): void {
    this.generationTokens += generated;
    this.runningTokens = Math.max(0, this.runningTokens - promptTokens);
    this.finished[reason]++;
  }

  metricsText(model: string): string {
    const labels = `model_name="${model}",engine="0"`;
    const out: string[] = [];
    const metric = (name: string, type: 'gauge' | 'counter', help: string, samples: readonly [string, number][]): void => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
      for (const [extra, v] of samples) out.push(`${name}{${extra === '' ? labels : `${extra},${labels}`}} ${pyFloat(v)}`);
    };
    const capacity = this.maxModelLen * this.maxRunning;
    metric('vllm:num_requests_running', 'gauge', 'Number of requests in model execution batches.', [['', this.running]]);
    metric('vllm:num_requests_waiting', 'gauge', 'Number of requests waiting to be processed.', [['', this.waiting.length]]);
    metric('vllm:kv_cache_usage_perc', 'gauge', 'KV-cache usage. 1 means 100 percent usage.', [
      ['', capacity > 0 ? Math.min(1, this.runningTokens / capacity) : 0],
    ]);
    metric('vllm:prefix_cache_queries_total', 'counter', 'Prefix cache queries, in terms of number of queried tokens.', [['', this.prefixQueries]]);
    metric('vllm:prefix_cache_hits_total', 'counter', 'Prefix cache hits, in terms of number of cached tokens.', [['', this.cachedTokens]]);
    metric('vllm:prompt_tokens_total', 'counter', 'Number of prefill tokens processed.', [['', this.promptTokens]]);
    metric('vllm:prompt_tokens_cached_total', 'counter', 'Number of cached prompt tokens (local + external).', [['', this.cachedTokens]]);
    metric('vllm:generation_tokens_total', 'counter', 'Number of generation tokens processed.', [['', this.generationTokens]]);
    metric('vllm:request_success_total', 'counter', 'Count of successfully processed requests.', [
      ['finished_reason="stop"', this.finished.stop],
      ['finished_reason="length"', this.finished.length],
      ['finished_reason="abort"', this.finished.abort],
    ]);
    return `${out.join('\n')}\n`;
  }
}

/** prometheus_client float formatting: integers keep a ".0". */
function pyFloat(v: number): string {
  return Number.isInteger(v) ? `${v}.0` : String(v);
}
