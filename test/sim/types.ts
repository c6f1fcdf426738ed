/**
 * Public types of the backend simulator: options, scripted turns, what a
 * script sees, and what the simulator records. No behaviour lives here.
 */

/**
 * The llama.cpp builds the simulator copies: b9553 (June 2026, fixtures in b9553/), the August 2026 build the
 * fixtures were captured from, and sep2026, the source pinned by the real-server suite (node-llama-cpp 3.22.1,
 * commit de3ff815, 2026-09-28), which differs from August in `/v1/models`: behind the API key, vocab_type a number.
 */
export type LlamaBuild = 'b9553' | 'aug2026' | 'sep2026';

export type SimFlavor = 'llama.cpp' | 'vllm' | 'ollama';

/** One tool call the scripted model makes. */
export interface ScriptToolUse {
  readonly name: string;
  readonly input: Record<string, unknown>;
}

/** What the scripted model answers to one request. */
export interface Turn {
  readonly thinking?: string;
  readonly text?: string;
  readonly toolUse?: ScriptToolUse | readonly ScriptToolUse[];
  /** Extra prompt-processing delay before the first token, on top of the server-wide delays. */
  readonly delayMs?: number;
  /** llama.cpp flavour: ends the prompt reading (`delayMs` and the prefill) early once this settles, for a test that has seen enough of it. */
  readonly readUntil?: Promise<unknown>;
  /** Delay between this turn's SSE deltas, instead of the server-wide tokenDelayMs (a slow model on one turn). */
  readonly tokenDelayMs?: number;
  /** Answer with this HTTP error instead of generating (sent at once, no slot taken). */
  readonly error?: { readonly status: number; readonly body: unknown; readonly headers?: Readonly<Record<string, string>> };
  /** Take a slot and never send headers (the client eventually gives up). */
  readonly hangBeforeHeaders?: boolean;
  /** Send 200 + headers, then nothing until the client disconnects. */
  readonly hangAfterHeaders?: boolean;
  /** Destroy the socket after this many SSE events (0 = right after the headers). */
  readonly cutAfterEvents?: number;
  /** Emit the flavour's mid-stream `event: error` after `afterEvents` events (default: after the last content delta). */
  readonly streamError?: { readonly message: string; readonly afterEvents?: number };
  /** Override reported usage numbers (the fake still counts the real ones in /metrics). */
  readonly usage?: { readonly input_tokens?: number; readonly cache_read_input_tokens?: number; readonly output_tokens?: number };
}

/** The request as a script sees it. */
export interface ParsedRequest {
  /** The JSON body exactly as sent. */
  readonly body: Readonly<Record<string, unknown>>;
  readonly model: string;
  readonly stream: boolean;
  readonly maxTokens: number | undefined;
  readonly messages: readonly Readonly<Record<string, unknown>>[];
  /** Assistant messages already in `messages` (the list-script index). */
  readonly assistantTurns: number;
  /** Text of the last user message (string content or its text blocks, joined by "\n"). */
  readonly lastUserText: string;
  /** Claude Code compaction request: the last user message asks for a TEXT ONLY summary. */
  readonly isCompaction: boolean;
  readonly headers: Readonly<Record<string, string>>;
}

export interface ScriptContext {
  readonly flavor: SimFlavor;
  /** 0-based number of generation requests this simulator has seen before this one. */
  readonly requestIndex: number;
  /** Prompt tokens as the simulator counts them. */
  readonly promptTokens: number;
}

export type ScriptFn = (req: ParsedRequest, ctx: ScriptContext) => Turn | Promise<Turn>;
export type Script = readonly Turn[] | ScriptFn;

export interface SimulatorOptions {
  readonly flavor: SimFlavor;
  /** Served id. llama.cpp: the alias; vLLM: the only accepted --served-model-name; Ollama: the one installed model (default qwen3.8:27b). */
  readonly modelId?: string;
  /**
   * The weights the served id runs on. llama.cpp: /props `model_path` (default `/models/<id>.gguf`, characters
   * outside `A-Za-z0-9._-` as `_`); vLLM: /v1/models `root` (its --model; default `Qwen/<id>`). Another file under
   * the same id is llama-server restarted with another GGUF and the same --alias.
   */
  readonly modelFile?: string;
  /** Listen on this port instead of a fresh one: another server started where one was stopped (a model swapped on the port). */
  readonly port?: number;
  /** llama.cpp: total_slots (default 1). vLLM: max running requests (default 4). Ollama: OLLAMA_NUM_PARALLEL (default 1). The rest wait. */
  readonly slots?: number;
  /** llama.cpp: per-slot n_ctx (default 131072). vLLM: max_model_len. Ollama: the num_ctx the model is loaded with (/api/ps context_length). */
  readonly context?: number;
  readonly nCtxTrain?: number;
  /** Render the real Qwen3.5 template and reject what it rejects, as the real server does (Ollama: as its strict renderers do). */
  readonly strictQwen?: boolean;
  /** llama.cpp build whose template-error status, metric names and API-key rules are copied (default 'aug2026'). */
  readonly llamaBuild?: LlamaBuild;
  /** llama.cpp `/props` build_info (default "b0-unknown", as a tarball build reports). */
  readonly buildInfo?: string;
  /** llama.cpp --metrics (default true). vLLM always serves /metrics. */
  readonly metrics?: boolean;
  /** llama.cpp --slots (default true). */
  readonly slotsEndpoint?: boolean;
  readonly apiKey?: string;
  /**
   * Start in the loading phase for this long. llama.cpp: every path answers 503 Loading model.
   * vLLM: the port refuses connections (the real server binds but does not listen until loaded).
   */
  readonly loadingMs?: number;
  readonly script?: Script;
  /** Delay between SSE deltas (default 0). */
  readonly tokenDelayMs?: number;
  /** Prompt-processing delay before message_start (default 0). */
  readonly firstTokenDelayMs?: number;
  /** Extra prompt-processing delay per evaluated (uncached) prompt token (default 0). */
  readonly prefillMsPerToken?: number;
  /** Delay before answering each GET (/props, /slots, /metrics…): a server too busy to say its state at once (default 0). */
  readonly statusDelayMs?: number;
  /** llama.cpp --sse-ping-interval: ":\n\n" comments while a streamed prompt is processed (default 30000 ms). */
  readonly ssePingMs?: number;
  /** Serve /v1/messages/count_tokens (default true; Ollama never has it). */
  readonly countTokens?: boolean;
  /** llama.cpp --slot-prompt-similarity (default 0.10). */
  readonly slotPromptSimilarity?: number;
  /**
   * llama.cpp with an --mmproj that takes images (default false): /props says modalities.vision and images are
   * accepted. Without it every request holding an image answers 500 "image input is not supported" (sep2026 also
   * for images inside a tool_result; b9553/aug2026 drop those silently).
   */
  readonly vision?: boolean;
  /** llama.cpp RAM prompt cache (--cache-ram; default on, 16 saved prompts). */
  readonly cacheRam?: boolean;
  /** llama.cpp router mode, every model loaded from the start with the server's `context`: shorthand for `router`. */
  readonly routerModels?: readonly string[];
  /** llama.cpp router mode with models loaded on demand (test/sim/llama-router.ts). */
  readonly router?: RouterOptions;
  /** vLLM --enable-prompt-tokens-details: report cache_read_input_tokens (default false). */
  readonly promptTokensDetails?: boolean;
  /** vLLM handling of role:"system" inside messages (default 'merge' into the leading system). */
  readonly vllmInlineSystem?: 'merge' | 'keep';
  /** vLLM --enable-auto-tool-choice + --tool-call-parser set (default true). */
  readonly vllmToolParser?: boolean;
  /** Ollama: the model is loaded at start and shows in /api/ps with `context` (default true). */
  readonly ollamaLoaded?: boolean;
}

export interface RecordedRequest {
  readonly method: string;
  /** Path with query string, as sent. */
  readonly url: string;
  /** Path without query string. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly bodyText: string;
  /** Parsed JSON body; undefined when absent or malformed. */
  readonly json: unknown;
  /** Response status once known (undefined while queued or when the socket was cut before headers). */
  status: number | undefined;
  /** ms since epoch when the request arrived. */
  readonly time: number;
  /** ms since epoch when the response ended or the connection closed. */
  endTime: number | undefined;
  /** llama.cpp: the slot that served the request. */
  slot: number | undefined;
  promptTokens: number | undefined;
  cachedTokens: number | undefined;
  outputTokens: number | undefined;
}

export interface SimStats {
  /** Generation requests holding a slot (vLLM: running). Queued requests are not in flight. */
  inFlight: number;
  peakInFlight: number;
  /** Generation requests that ran to their last byte. */
  completed: number;
  /** Requests waiting for a slot now. */
  queued: number;
  /** Generation requests that ended early (client gone, cut, hang released). */
  aborted: number;
}

export interface Simulator {
  readonly url: string;
  readonly port: number;
  readonly flavor: SimFlavor;
  readonly modelId: string;
  readonly requests: RecordedRequest[];
  readonly stats: SimStats;
  /** llama.cpp router mode: every load, failed load and eviction so far, in order (empty otherwise). */
  readonly routerEvents: readonly RouterEvent[];
  setScript(script: Script): void;
  /** Enter the loading phase for `ms` from now (see SimulatorOptions.loadingMs). */
  setLoading(ms: number): void;
  /** down=true: stop listening and drop every connection (a crashed server); false: listen again on the same port. */
  setDown(down: boolean): Promise<void>;
  close(): Promise<void>;
}

/** One model of a simulated router (a GGUF in --models-dir, or a preset section). */
export interface RouterModelOptions {
  readonly id: string;
  /** This model's --ctx-size (a preset's `c`); the router's when absent. */
  readonly ctxSize?: number;
  /** This model's --parallel; the router's when absent (automatic: 4 slots sharing one unified cache). */
  readonly parallel?: number;
  /** Loaded when the simulator starts (default false). */
  readonly loaded?: boolean;
  /** A damaged file: every load fails (the child exits 1). */
  readonly broken?: boolean;
}

export interface RouterEvent {
  readonly model: string;
  readonly event: 'loading' | 'loaded' | 'failed' | 'evicted';
  readonly time: number;
}

export interface RouterOptions {
  readonly models: readonly RouterModelOptions[];
  /** --models-max (default 4; 0 = no limit). */
  readonly modelsMax?: number;
  /** How long a load takes (default 0). */
  readonly loadMs?: number;
  /** The router's own -c and --parallel, inherited by every model. */
  readonly ctxSize?: number;
  readonly parallel?: number;
}
