/**
 * llama.cpp slot scheduling and prompt caching: FIFO queue while every slot is
 * busy, slot choice by LCP similarity (> --slot-prompt-similarity) else LRU,
 * per-slot KV prefix reuse, and the RAM prompt cache that saves an evicted
 * slot's prompt and restores it when a later prompt matches it better.
 */
import { cachedTokensFor, lcpChars, tokenCount } from './prompt-text.js';

export interface SlotState {
  readonly id: number;
  /** Prompt text whose KV is in the slot. */
  prompt: string;
  tLast: number;
  busy: boolean;
  idTask: number | undefined;
  /** Tokens in the slot's KV cache: the cached prefix, then each batch as it is queued, then each generated token. */
  nPromptTokens: number;
  /** Prompt tokens evaluated so far (not the cached ones). */
  nPromptProcessed: number;
  nPromptCache: number;
  nDecoded: number;
  nRemain: number;
  /** While the prompt is being read: from when, for how long, how many tokens (read at a steady pace, a batch at a time). */
  reading: { readonly since: number; readonly ms: number; readonly tokens: number } | undefined;
}

/**
 * llama-server's default --batch-size: the prompt is queued and evaluated this many tokens at a time, and
 * /slots counts them a batch at a time (server-context.cpp: the batch loop in update_slots; metrics_post_decode).
 */
export const N_BATCH = 2048;

/**
 * The slot's prompt counters at `now`, as /slots reports them while the prompt is read (server-context.cpp
 * server_slot::to_json): n_prompt_tokens_processed counts whole evaluated batches, n_prompt_tokens also the batch
 * being evaluated (queued into the KV list before the decode), on top of the cached prefix.
 */
export function promptCounters(s: SlotState, now: number): { readonly tokens: number; readonly processed: number } {
  const r = s.reading;
  if (r === undefined) return { tokens: s.nPromptTokens, processed: s.nPromptProcessed };
  const fraction = r.ms > 0 ? Math.min(1, (now - r.since) / r.ms) : 1;
  const processed = Math.min(r.tokens, Math.floor((r.tokens * fraction) / N_BATCH) * N_BATCH);
  return { tokens: s.nPromptCache + Math.min(r.tokens, processed + N_BATCH), processed };
}

export interface SlotAssignment {
  readonly slot: SlotState;
  readonly how: 'lcp' | 'lru';
  readonly promptTokens: number;
  readonly cachedTokens: number;
}

interface Waiter {
  readonly prompt: string;
  readonly resolve: (a: SlotAssignment | undefined) => void;
}

const RAM_CACHE_ENTRIES = 16;

export class SlotPool {
  readonly slots: SlotState[];
  private readonly queue: Waiter[] = [];
  private readonly ramCache: string[] = [];
  private taskCounter = 0;
  private clock = 0;

  constructor(
    count: number,
    private readonly similarity: number,
    private readonly cacheRam: boolean,
  ) {
    this.slots = Array.from({ length: count }, (_, id) => ({
      id,
      prompt: '',
      tLast: -1,
      busy: false,
      idTask: undefined,
      nPromptTokens: 0,
      nPromptProcessed: 0,
      nPromptCache: 0,
      nDecoded: 0,
      nRemain: -1,
      reading: undefined,
    }));
  }

  get busyCount(): number {
    return this.slots.filter((s) => s.busy).length;
  }

  get queuedCount(): number {
    return this.queue.length;
  }

  /** Waits (no bytes sent) until a slot is free; undefined when `signal` aborts first. */
  acquire(prompt: string, signal: AbortSignal): Promise<SlotAssignment | undefined> {
    if (this.queue.length === 0 && this.slots.some((s) => !s.busy)) return Promise.resolve(this.assign(prompt));
    return new Promise((resolve) => {
      const waiter: Waiter = { prompt, resolve };
      this.queue.push(waiter);
      signal.addEventListener(
        'abort',
        () => {
          const i = this.queue.indexOf(waiter);
          if (i >= 0) {
            this.queue.splice(i, 1);
            resolve(undefined);
          }
        },
        { once: true },
      );
    });
  }

  /** Marks the slot free and hands it to the oldest waiter. */
  release(slot: SlotState): void {
    slot.busy = false;
    slot.tLast = ++this.clock;
    const next = this.queue.shift();
    if (next !== undefined) next.resolve(this.assign(next.prompt));
  }

  private assign(prompt: string): SlotAssignment {
    const idle = this.slots.filter((s) => !s.busy);
    const promptTokens = tokenCount(prompt);
    let best: SlotState | undefined;
    let bestSim = -1;
    if (this.similarity > 0) {
      for (const s of idle) {
        if (s.prompt === '') continue;
        const sim = Math.floor(lcpChars(s.prompt, prompt) / 4) / Math.max(1, promptTokens);
        if (sim > this.similarity && sim > bestSim) {
          best = s;
          bestSim = sim;
        }
      }
    }
    const how = best === undefined ? 'lru' : 'lcp';
    // LRU: never-used slots (tLast -1) first, then the longest idle.
    const slot = best ?? idle.reduce((a, b) => (b.tLast < a.tLast ? b : a));
    let lcp = lcpChars(slot.prompt, prompt);
    if (this.cacheRam) lcp = this.swapWithRamCache(slot, prompt, lcp, how);
    slot.busy = true;
    slot.idTask = this.taskCounter++;
    const cachedTokens = cachedTokensFor(lcp, promptTokens);
    // The KV list is cut back to the cached prefix; the prompt is read in generate() (startReading).
    slot.nPromptTokens = cachedTokens;
    slot.nPromptCache = cachedTokens;
    slot.nPromptProcessed = 0;
    slot.nDecoded = 0;
    return { slot, how, promptTokens, cachedTokens };
  }

  /** Saves the slot's prompt when it is about to be mostly discarded; restores a better saved one. */
  private swapWithRamCache(slot: SlotState, prompt: string, lcp: number, how: 'lcp' | 'lru'): number {
    const fKeep = slot.prompt === '' ? 1 : lcp / slot.prompt.length;
    if (slot.prompt !== '' && (how === 'lru' || fKeep < 0.5)) {
      this.ramCache.push(slot.prompt);
      if (this.ramCache.length > RAM_CACHE_ENTRIES) this.ramCache.shift();
    }
    let bestIdx = -1;
    let bestLcp = lcp;
    this.ramCache.forEach((saved, i) => {
      const l = lcpChars(saved, prompt);
      if (l / saved.length >= 0.25 && l > bestLcp) {
        bestIdx = i;
        bestLcp = l;
      }
    });
    if (bestIdx < 0) return lcp;
    const [restored] = this.ramCache.splice(bestIdx, 1);
    slot.prompt = restored ?? slot.prompt;
    return bestLcp;
  }
}
