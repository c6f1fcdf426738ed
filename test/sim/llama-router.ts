/**
 * llama.cpp router mode (tools/server/server-models.cpp in the pinned source; docs/backends.md §3.1): models listed
 * with their state and the argv the router will give each child; a request naming an unloaded model waits while
 * it loads; at `--models-max` the least recently used idle model is evicted first ("evicting idle LRU"); a model
 * whose load fails answers 500 "model name=X failed to load" and shows `failed: true` with the exit code.
 * Each model has its own slots and window, from its `--ctx-size` and `--parallel`.
 */
import { sleep } from './http-io.js';
import { LlamaMetrics } from './llama-metrics.js';
import type { LlamaEngine } from './llama-messages.js';
import { SlotPool } from './llama-slots.js';
import type { SimState } from './sim-state.js';
import type { RouterEvent, RouterOptions } from './types.js';

export type RouterModelState = 'unloaded' | 'loading' | 'loaded';

interface ModelSlot {
  readonly id: string;
  readonly file: string;
  readonly args: readonly string[];
  readonly context: number;
  readonly slots: number;
  readonly broken: boolean;
  state: RouterModelState;
  failed: boolean;
  lastUsed: number;
  /** Requests using it now (a busy model is never evicted). */
  inUse: number;
  /** Requests waiting for it to load (a wanted model is never evicted either). */
  waiting: number;
  engine: LlamaEngine | undefined;
}

const pad256 = (n: number): number => Math.ceil(n / 256) * 256;

/** An error the router answers with: the request handler's runtime_error (500) or invalid_argument (400). */
export class RouterRefusal extends Error {
  constructor(
    message: string,
    readonly type: 'server_error' | 'invalid_request_error',
  ) {
    super(message);
  }
}

export class RouterSim {
  readonly events: RouterEvent[] = [];
  readonly modelsMax: number;
  private readonly models = new Map<string, ModelSlot>();
  private readonly loadMs: number;
  private readonly changed = new Set<() => void>();

  constructor(
    private readonly state: SimState,
    options: RouterOptions,
  ) {
    this.modelsMax = options.modelsMax ?? 4;
    this.loadMs = options.loadMs ?? 0;
    for (const m of options.models) {
      const ctxSize = m.ctxSize ?? options.ctxSize;
      const parallel = m.parallel ?? options.parallel;
      const auto = parallel === undefined;
      const slots = parallel ?? 4;
      const total = pad256(ctxSize ?? state.opts.nCtxTrain);
      const context = Math.min(auto ? total : pad256(Math.floor(total / slots)), state.opts.nCtxTrain);
      const file = `/models/${m.id}.gguf`;
      // The child's argv as the router renders it: long option names, the router's own flags first.
      const args = ['llama-server', '--host', '127.0.0.1', '--port', '0', '--alias', m.id, '--model', file];
      if (ctxSize !== undefined) args.push('--ctx-size', String(ctxSize));
      if (parallel !== undefined) args.push('--parallel', String(parallel));
      const loaded = m.loaded ?? false;
      this.models.set(m.id, { id: m.id, file, args, context, slots, broken: m.broken ?? false, state: loaded ? 'loaded' : 'unloaded', failed: false, lastUsed: 0, inUse: 0, waiting: 0, engine: undefined });
    }
  }

  has(id: string): boolean {
    return this.models.has(id);
  }

  isRunning(id: string): boolean {
    const m = this.models.get(id);
    return m !== undefined && m.state !== 'unloaded';
  }

  /** The instance serving `id` (it must be running): its own slots and window. */
  engineOf(id: string): LlamaEngine {
    const m = this.model(id);
    m.engine ??= { state: this.state, pool: new SlotPool(m.slots, this.state.opts.slotPromptSimilarity, this.state.opts.cacheRam), metrics: new LlamaMetrics(), context: m.context };
    return m.engine;
  }

  contextOf(id: string): number {
    return this.model(id).context;
  }

  fileOf(id: string): string {
    return this.model(id).file;
  }

  /** `GET /models` entries, without the fields a loaded child adds. */
  list(): { id: string; status: Record<string, unknown>; loaded: boolean }[] {
    return [...this.models.values()].map((m) => ({
      id: m.id,
      status: { value: m.state, args: m.args, ...(m.failed ? { exit_code: 1, failed: true } : {}) },
      loaded: m.state === 'loaded',
    }));
  }

  /** Marks `id` used by one request until the returned function is called; only a POST counts as a use for eviction order (`touch`). */
  use(id: string, touch: boolean): () => void {
    const m = this.model(id);
    m.inUse++;
    if (touch) m.lastUsed = performance.now();
    return () => {
      m.inUse--;
      this.notify();
    };
  }

  /** Waits until `id` is loaded, loading it (after evicting the LRU idle model when full) when it is not; throws the router's words when the load fails. */
  async ensureReady(id: string, signal: AbortSignal): Promise<void> {
    const m = this.model(id);
    if (m.state === 'loaded') return;
    m.waiting++;
    try {
      let sawLoad = false;
      for (;;) {
        const state = this.stateOf(m); // changes while this waits
        if (state === 'loaded') return;
        if (state === 'loading') sawLoad = true;
        else if (sawLoad && m.failed) throw new RouterRefusal(`model name=${id} failed to load`, 'server_error');
        else if (this.makeRoom(id)) {
          sawLoad = true;
          void this.load(m);
        }
        if (signal.aborted) throw new RouterRefusal(`request cancelled while waiting for model name=${id}`, 'server_error');
        await this.nextChange(signal);
      }
    } finally {
      m.waiting--;
    }
  }

  private stateOf(m: ModelSlot): RouterModelState {
    return m.state;
  }

  private model(id: string): ModelSlot {
    const m = this.models.get(id);
    if (m === undefined) throw new Error(`router sim: no model ${id}`);
    return m;
  }

  /** True when `id` may start loading now: below --models-max, or after evicting the least recently used idle model. */
  private makeRoom(id: string): boolean {
    const running = [...this.models.values()].filter((m) => m.state !== 'unloaded');
    if (this.modelsMax <= 0 || running.length < this.modelsMax) return true;
    const idle = running.filter((m) => m.state === 'loaded' && m.inUse === 0 && m.waiting === 0 && m.id !== id).sort((a, b) => a.lastUsed - b.lastUsed);
    const victim = idle[0];
    if (victim === undefined) return false;
    victim.state = 'unloaded';
    victim.engine = undefined;
    this.events.push({ model: victim.id, event: 'evicted', time: Date.now() });
    return running.length - 1 < this.modelsMax;
  }

  private async load(m: ModelSlot): Promise<void> {
    m.state = 'loading';
    m.failed = false;
    m.lastUsed = performance.now();
    this.events.push({ model: m.id, event: 'loading', time: Date.now() });
    this.notify();
    await sleep(this.loadMs);
    if (m.broken) {
      m.state = 'unloaded';
      m.failed = true;
      this.events.push({ model: m.id, event: 'failed', time: Date.now() });
    } else {
      m.state = 'loaded';
      this.events.push({ model: m.id, event: 'loaded', time: Date.now() });
    }
    this.notify();
  }

  private notify(): void {
    for (const wake of [...this.changed]) wake();
  }

  /** Resolves at the next state change (or after 200 ms, as the router's own wait does). */
  private nextChange(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.changed.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, 200);
      this.changed.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
