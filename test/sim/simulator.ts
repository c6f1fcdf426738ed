/**
 * startSimulator(): the in-process fake backend. Owns the node:http server on
 * 127.0.0.1 (listening, going down, coming back on the same port), reads and
 * records every request, and hands it to the llama.cpp, vLLM or Ollama handler.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { LlamaHandler } from './llama-handler.js';
import { resolveOptions, SimState, type Exchange } from './sim-state.js';
import type { RecordedRequest, Script, Simulator, SimulatorOptions } from './types.js';
import { OllamaHandler } from './ollama-handler.js';
import { VllmHandler } from './vllm-handler.js';

interface FlavorHandler {
  handle(ex: Exchange): Promise<void>;
}

function headerRecord(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      const addr = server.address();
      // address() is an AddressInfo for a TCP listener (a string only for pipes).
      resolve((addr as AddressInfo).port);
    });
  });
}

function stopListening(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

class SimulatorImpl implements Simulator {
  readonly url: string;
  private readonly handler: FlavorHandler;
  private relistenTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly state: SimState,
  ) {
    this.url = `http://127.0.0.1:${port}`;
    this.handler = state.opts.flavor === 'llama.cpp' ? new LlamaHandler(state) : state.opts.flavor === 'ollama' ? new OllamaHandler(state) : new VllmHandler(state);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.onRequest(req, res));
  }

  get flavor(): Simulator['flavor'] {
    return this.state.opts.flavor;
  }

  get modelId(): string {
    return this.state.opts.modelId;
  }

  get routerEvents(): Simulator['routerEvents'] {
    return this.handler instanceof LlamaHandler ? (this.handler.router?.events ?? []) : [];
  }

  get requests(): RecordedRequest[] {
    return this.state.requests;
  }

  get stats(): Simulator['stats'] {
    return this.state.stats;
  }

  setScript(script: Script): void {
    this.state.script = script;
  }

  setLoading(ms: number): void {
    if (this.state.opts.flavor === 'llama.cpp') {
      this.state.loadingUntil = Date.now() + ms;
      return;
    }
    // vLLM does not listen while it loads (nor does a restarting Ollama): refuse connections, then come back on the same port.
    void this.setDown(true).then(() => {
      if (this.closed) return;
      this.relistenTimer = setTimeout(() => void this.setDown(false), ms);
    });
  }

  async setDown(down: boolean): Promise<void> {
    clearTimeout(this.relistenTimer);
    if (down) {
      for (const c of this.state.controllers) c.abort();
      await stopListening(this.server);
    } else if (!this.server.listening && !this.closed) {
      await listen(this.server, this.port);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.relistenTimer);
    for (const c of this.state.controllers) c.abort();
    await stopListening(this.server);
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const bodyText = Buffer.concat(chunks).toString('utf8');
      const url = req.url ?? '/';
      const rec: RecordedRequest = {
        method: req.method ?? 'GET',
        url,
        path: url.split('?')[0] ?? '/',
        headers: headerRecord(req),
        bodyText,
        json: parseJson(bodyText),
        status: undefined,
        time: Date.now(),
        endTime: undefined,
        slot: undefined,
        promptTokens: undefined,
        cachedTokens: undefined,
        outputTokens: undefined,
      };
      this.state.requests.push(rec);
      const ac = new AbortController();
      this.state.controllers.add(ac);
      res.on('close', () => {
        rec.endTime = Date.now();
        if (res.headersSent) rec.status = res.statusCode;
        if (!res.writableFinished) ac.abort();
        this.state.controllers.delete(ac);
      });
      const handle = (): Promise<void> => this.handler.handle({ req, res, rec, signal: ac.signal });
      const delay = rec.method === 'GET' ? this.state.opts.statusDelayMs : 0;
      (delay > 0 ? sleep(delay).then(handle) : handle()).catch((e: unknown) => {
        if (res.headersSent) res.destroy();
        else {
          res.writeHead(500, { 'Content-Type': 'text/plain' });
          res.end(`simulator error: ${e instanceof Error ? e.message : String(e)}`);
        }
      });
    });
  }
}

/** Starts a fake llama-server, vLLM or Ollama on 127.0.0.1 with a free port. */
export async function startSimulator(opts: SimulatorOptions): Promise<Simulator> {
  const state = new SimState(resolveOptions(opts), opts.script, opts.flavor === 'llama.cpp' ? (opts.loadingMs ?? 0) : 0);
  const server = createServer();
  const port = await listen(server, opts.port ?? 0);
  const sim = new SimulatorImpl(server, port, state);
  if (opts.flavor === 'vllm' && (opts.loadingMs ?? 0) > 0) sim.setLoading(opts.loadingMs ?? 0);
  return sim;
}
