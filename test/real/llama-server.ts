/**
 * A real llama-server process for one test file: the cached binary, a tiny model, the flags users run it with,
 * bound to 127.0.0.1 on a free port. Its log is kept for assertions and for the failure message.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export interface LlamaServerOptions {
  /** Path of the llama-server binary (test/real/build-llama-server.ts). */
  readonly binary: string;
  /** Path of the GGUF model (test/real/tiny-models.ts). */
  readonly modelFile: string;
  /** `--parallel` (slots). */
  readonly parallel: number;
  /** Per-slot context; `-c` is this times `parallel`. */
  readonly slotContext: number;
  readonly apiKey?: string;
  /** `-n`: cap on generated tokens per request (the random model otherwise writes until max_tokens). */
  readonly nPredict?: number;
  /** More llama-server flags, as a user would add them (e.g. `--slot-prompt-similarity 0.9`). */
  readonly extraArgs?: readonly string[];
  /** Listen here instead of on a free port: the server a user starts again after it died. */
  readonly port?: number;
}

export interface LlamaServer {
  readonly url: string;
  readonly port: number;
  /** The served id (`--alias`). */
  readonly modelId: string;
  readonly log: () => string;
  /** `/metrics` counters by name (labels dropped, llama.cpp has none). */
  metrics(): Promise<Record<string, number>>;
  /** SIGKILL, as the out-of-memory killer would; resolves once it has exited. */
  kill(): Promise<void>;
  close(): Promise<void>;
}

export const MODEL_ID = 'tiny-qwen';

/** A loopback port nothing listens on now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const MAX_LOG = 2_000_000;

export async function startLlamaServer(options: LlamaServerOptions): Promise<LlamaServer> {
  const port = options.port ?? (await freePort());
  const args = [
    '-m', options.modelFile,
    '--host', '127.0.0.1', '--port', String(port),
    '--alias', MODEL_ID,
    '--jinja', '--slots', '--metrics',
    '--parallel', String(options.parallel),
    '-c', String(options.slotContext * options.parallel),
    '-t', '2',
    ...(options.apiKey !== undefined ? ['--api-key', options.apiKey] : []),
    ...(options.nPredict !== undefined ? ['-n', String(options.nPredict)] : []),
    ...(options.extraArgs ?? []),
  ];
  const child: ChildProcess = spawn(options.binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (chunk: Buffer): void => {
    log = (log + chunk.toString('utf8')).slice(-MAX_LOG);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const auth: Record<string, string> = options.apiKey !== undefined ? { authorization: `Bearer ${options.apiKey}` } : {};

  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`llama-server exited with ${child.exitCode}:\n${log.slice(-4000)}`);
    try {
      if ((await fetch(`${url}/health`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`llama-server did not become healthy in 180 s:\n${log.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }

  return {
    url,
    port,
    modelId: MODEL_ID,
    log: () => log,
    async metrics() {
      const text = await (await fetch(`${url}/metrics`, { headers: auth })).text();
      const out: Record<string, number> = {};
      for (const line of text.split('\n')) {
        const m = /^([a-zA-Z_:][\w:]*)(?:\{[^}]*\})?\s+(\S+)/.exec(line);
        if (m?.[1] !== undefined && m[2] !== undefined) out[m[1]] = Number(m[2]);
      }
      return out;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
    async close() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}
