/**
 * What a live probe of one endpoint found. Typed records, shared by the
 * registry (resolution), the MCP tools and the CLI; produced only by backends/.
 */
import type { BackendKind } from '../config/schema.js';

/** `up`: answers and serves models. `loading`: 503 Loading model. `down`: no HTTP answer. */
export type EndpointState = 'up' | 'loading' | 'down' | 'needs_api_key' | 'error';

/** Whether the machine itself answered, told apart from whether the server on it did. */
export type HostState = 'up' | 'down' | 'unknown';

export type ContextSource =
  | 'llama.cpp /v1/models meta.n_ctx (per slot)'
  | 'llama.cpp /props n_ctx (per slot)'
  | 'llama.cpp /slots n_ctx'
  | "llama.cpp router's arguments for the model (--ctx-size / --parallel)"
  | 'vllm max_model_len'
  | 'ollama /api/ps context_length'
  | 'models.yaml context'
  | 'unknown';

/**
 * Which weights a served id runs on, where the server says (docs/backends.md §3, §5, §7): a restart with another
 * file under the same id (llama-server's --alias) is another model to a running job.
 */
export interface ModelWeights {
  /** llama.cpp: /props model_path (single-model servers); vLLM: /v1/models root (its --model, a path or a repo id). */
  readonly file?: string | undefined;
  /** llama.cpp: /v1/models meta n_params and size; Ollama: the /api/tags digest. */
  readonly fingerprint?: string | undefined;
}

export interface ServedModel extends ModelWeights {
  /** The exact id the server answers to (vLLM: a --served-model-name; llama.cpp: the alias). */
  readonly id: string;
  readonly aliases: readonly string[];
  /** Per-request window in tokens, when known. */
  readonly context: number | undefined;
  readonly contextSource: ContextSource;
  /** Router mode: loaded / loading / unloaded / sleeping; undefined for single-model servers. */
  readonly routerStatus?: string | undefined;
  /** Router mode: what the router says of this model beyond its state; undefined for single-model servers. */
  readonly router?: RouterModel | undefined;
  /** Takes image input, as the server reports it (llama.cpp /props modalities, router input_modalities); undefined when it does not say. */
  readonly vision?: boolean | undefined;
  readonly warnings: readonly string[];
}

/** One model of a router-mode server (llama.cpp `GET /models` status, and the loaded instance's own endpoints). */
export interface RouterModel {
  /** The router's last load of it failed (a bad GGUF, out of memory): its exit code. */
  readonly failedExitCode?: number | undefined;
  /** Slots its instance has (loaded: /slots?model=), or will have (from the router's arguments for it). */
  readonly slots: SlotUsage | undefined;
  /** Requests its instance is running and deferring (/metrics?model=, loaded models with --metrics). */
  readonly metrics?: LoadMetrics | undefined;
}

export interface SlotUsage {
  readonly total: number;
  readonly busy: number;
  readonly free: number;
  readonly source: '/slots' | '/props' | '/metrics' | 'router arguments';
}

export interface LoadMetrics {
  readonly enabled: boolean;
  readonly requestsRunning?: number | undefined;
  readonly requestsWaiting?: number | undefined;
  /** vLLM only: 0..1. */
  readonly kvCacheUsage?: number | undefined;
}

export interface EndpointProbe {
  readonly endpoint: string;
  readonly baseUrl: string;
  readonly backend: BackendKind;
  readonly host: string | undefined;
  readonly notes: string | undefined;
  readonly state: EndpointState;
  readonly hostState: HostState;
  /** One plain-language sentence: why the state is what it is. */
  readonly reason: string;
  readonly models: readonly ServedModel[];
  readonly slots: SlotUsage | undefined;
  readonly metrics: LoadMetrics;
  /** Server facts worth showing (llama.cpp build, router mode, jinja/tool support). */
  readonly server: {
    readonly build?: string | undefined;
    readonly router?: boolean | undefined;
    /** Router mode: models it keeps loaded at once (--models-max; 0 = no limit). */
    readonly maxInstances?: number | undefined;
    /** llama.cpp chat template supports tool calls (needs --jinja). */
    readonly toolCalls?: boolean | undefined;
  };
  readonly warnings: readonly string[];
  readonly elapsedMs: number;
}
