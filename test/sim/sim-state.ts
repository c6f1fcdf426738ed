/**
 * State shared by the HTTP front and the flavour handlers: resolved options,
 * the mutable script, loading phase, request log, stats, and the abort
 * controllers of running generations (so close() can stop them).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LlamaBuild, RecordedRequest, RouterOptions, Script, SimFlavor, SimStats, SimulatorOptions } from './types.js';

export interface ResolvedOptions {
  readonly flavor: SimFlavor;
  readonly modelId: string;
  readonly modelFile: string;
  readonly slots: number;
  readonly context: number;
  readonly nCtxTrain: number;
  readonly strictQwen: boolean;
  readonly llamaBuild: LlamaBuild;
  readonly buildInfo: string;
  readonly metrics: boolean;
  readonly slotsEndpoint: boolean;
  readonly apiKey: string | undefined;
  readonly tokenDelayMs: number;
  readonly firstTokenDelayMs: number;
  readonly prefillMsPerToken: number;
  readonly statusDelayMs: number;
  readonly ssePingMs: number;
  readonly countTokens: boolean;
  readonly slotPromptSimilarity: number;
  readonly cacheRam: boolean;
  readonly vision: boolean;
  readonly router: RouterOptions | undefined;
  readonly promptTokensDetails: boolean;
  readonly vllmInlineSystem: 'merge' | 'keep';
  readonly vllmToolParser: boolean;
  readonly ollamaLoaded: boolean;
}

export const DEFAULT_LLAMA_MODEL = 'unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL';
export const DEFAULT_VLLM_MODEL = 'qwen3.8-27b';
export const DEFAULT_OLLAMA_MODEL = 'qwen3.8:27b';

export function resolveOptions(o: SimulatorOptions): ResolvedOptions {
  const llama = o.flavor !== 'vllm'; // Ollama: OLLAMA_NUM_PARALLEL defaults to 1, like llama.cpp's one slot
  const modelId = o.modelId ?? { 'llama.cpp': DEFAULT_LLAMA_MODEL, vllm: DEFAULT_VLLM_MODEL, ollama: DEFAULT_OLLAMA_MODEL }[o.flavor];
  return {
    flavor: o.flavor,
    modelId,
    modelFile: o.modelFile ?? (o.flavor === 'vllm' ? `Qwen/${modelId}` : `/models/${modelId.replace(/[^A-Za-z0-9._-]+/g, '_')}.gguf`),
    slots: Math.max(1, o.slots ?? (llama ? 1 : 4)),
    context: o.context ?? 131072,
    nCtxTrain: o.nCtxTrain ?? 262144,
    strictQwen: o.strictQwen ?? false,
    llamaBuild: o.llamaBuild ?? 'aug2026',
    buildInfo: o.buildInfo ?? 'b0-unknown',
    metrics: o.metrics ?? true,
    slotsEndpoint: o.slotsEndpoint ?? true,
    apiKey: o.apiKey,
    tokenDelayMs: o.tokenDelayMs ?? 0,
    firstTokenDelayMs: o.firstTokenDelayMs ?? 0,
    prefillMsPerToken: o.prefillMsPerToken ?? 0,
    statusDelayMs: o.statusDelayMs ?? 0,
    ssePingMs: o.ssePingMs ?? 30_000,
    countTokens: o.countTokens ?? true,
    slotPromptSimilarity: o.slotPromptSimilarity ?? 0.1,
    cacheRam: o.cacheRam ?? true,
    vision: o.vision ?? false,
    router: o.router ?? (o.routerModels && routerShorthand(o.routerModels, o.context ?? 131072, Math.max(1, o.slots ?? 1))),
    promptTokensDetails: o.promptTokensDetails ?? false,
    vllmInlineSystem: o.vllmInlineSystem ?? 'merge',
    vllmToolParser: o.vllmToolParser ?? true,
    ollamaLoaded: o.ollamaLoaded ?? true,
  };
}

/** `routerModels`: every model loaded, each with the server's per-slot `context` and `slots`. */
function routerShorthand(ids: readonly string[], context: number, slots: number): RouterOptions {
  return { models: ids.map((id) => ({ id, loaded: true })), ctxSize: context * slots, parallel: slots };
}

/** One incoming request with its body read and its log record created. */
export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly rec: RecordedRequest;
  /** Aborts when the client disconnects or the simulator closes. */
  readonly signal: AbortSignal;
}

export class SimState {
  readonly requests: RecordedRequest[] = [];
  readonly stats: SimStats = { inFlight: 0, peakInFlight: 0, completed: 0, queued: 0, aborted: 0 };
  readonly controllers = new Set<AbortController>();
  script: Script;
  loadingUntil: number;
  generationCount = 0;
  /** Ollama: whether the model shows in /api/ps (it loads on its first request). */
  ollamaLoaded: boolean;

  constructor(
    readonly opts: ResolvedOptions,
    script: Script | undefined,
    loadingMs: number,
  ) {
    this.ollamaLoaded = opts.ollamaLoaded;
    this.script = script ?? [];
    this.loadingUntil = loadingMs > 0 ? Date.now() + loadingMs : 0;
  }

  isLoading(): boolean {
    return Date.now() < this.loadingUntil;
  }

  enterFlight(): void {
    this.stats.inFlight++;
    this.stats.peakInFlight = Math.max(this.stats.peakInFlight, this.stats.inFlight);
  }

  leaveFlight(outcome: 'completed' | 'aborted'): void {
    this.stats.inFlight--;
    this.stats[outcome]++;
  }

  nextGenerationIndex(): number {
    return this.generationCount++;
  }
}
