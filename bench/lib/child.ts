/**
 * Benchmark helper processes: a TypeScript module forked under tsx that
 * answers calls over the IPC channel. Keeping the backend stub and the
 * proxies out of the load generator's process means each one's CPU can be
 * read on its own and none steals the others' event loop.
 */
import { fork, type ChildProcess } from 'node:child_process';

interface CallMessage {
  readonly id: number;
  readonly method: string;
  readonly params: unknown;
}

interface ReplyMessage {
  readonly id: number;
  readonly result?: unknown;
  readonly error?: string;
}

function isReply(value: unknown): value is ReplyMessage {
  return typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'number';
}

function isCall(value: unknown): value is CallMessage {
  return isReply(value) && typeof (value as { method?: unknown }).method === 'string';
}

export interface HelperProcess {
  readonly pid: number;
  call<T>(method: string, params?: unknown): Promise<T>;
  close(): Promise<void>;
}

/** Forks `modulePath` (absolute) with tsx; extra node flags (e.g. --cpu-prof) go in `execArgv`. */
export function forkHelper(modulePath: string, execArgv: readonly string[] = []): HelperProcess {
  const child: ChildProcess = fork(modulePath, [], { execArgv: ['--import', 'tsx', ...execArgv], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 1;
  child.on('message', (msg: unknown) => {
    if (!isReply(msg)) return;
    const p = pending.get(msg.id);
    pending.delete(msg.id);
    if (msg.error !== undefined) p?.reject(new Error(msg.error));
    else p?.resolve(msg.result);
  });
  child.on('exit', (code) => {
    for (const p of pending.values()) p.reject(new Error(`helper ${modulePath} exited (${code})`));
    pending.clear();
  });
  return {
    pid: child.pid ?? -1,
    call<T>(method: string, params?: unknown): Promise<T> {
      const id = next++;
      return new Promise<T>((resolve, reject) => {
        // The helper's reply is typed by the method's contract, which both sides share in code.
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id, method, params });
      });
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ id: 0, method: 'exit', params: undefined });
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export type Handlers = Record<string, (params: unknown) => unknown>;

/** The helper's side: answers calls until told to exit (then runs `onExit` and leaves). */
export function serveCalls(handlers: Handlers, onExit: () => Promise<void>): void {
  process.on('message', (msg: unknown) => {
    if (!isCall(msg)) return;
    if (msg.method === 'exit') {
      void onExit().finally(() => process.exit(0));
      return;
    }
    const handler = handlers[msg.method];
    Promise.resolve()
      .then(() => {
        if (handler === undefined) throw new Error(`no method ${msg.method}`);
        return handler(msg.params);
      })
      .then(
        (result: unknown) => process.send?.({ id: msg.id, result }),
        (err: unknown) => process.send?.({ id: msg.id, error: err instanceof Error ? err.message : String(err) }),
      );
  });
  process.on('disconnect', () => void onExit().finally(() => process.exit(0)));
}

export function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}
