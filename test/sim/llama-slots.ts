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
  nPromptTokens: number;
  nPromptProcessed: number;
  nPromptCache: number;
  nDecoded: number;
  nRemain: number;
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
    slot.nPromptTokens = promptTokens;
    slot.nPromptCache = cachedTokens;
    slot.nPromptProcessed = promptTokens - cachedTokens;
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
