/**
 * A 2026-07-28 MCP client over stdio or HTTP, written out as Claude Code 2.1.332 sends it (docs/claude-code-wire.md
 * §6): no initialize, the version and capabilities in every request's `_meta`. The official SDK clients cannot be
 * this caller: v1 speaks only 2025-11-25, and v2 (2.4.0) has no tasks extension.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { BIN, serverEnv, type E2EDirs } from '../e2e/harness.js';

export const TASKS = 'io.modelcontextprotocol/tasks';

export interface RpcAnswer {
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string; data?: unknown };
}

export interface ModernClient {
  /** `tasks: false` leaves the tasks extension out of this request's capabilities. */
  request(method: string, params?: Record<string, unknown>, options?: { tasks?: boolean }): Promise<RpcAnswer>;
  close(): Promise<void>;
  readonly pid?: number | undefined;
}

export function meta(tasks: boolean): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'tasks-test', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { [TASKS]: {} } } : {},
  };
}

const body = (id: number, method: string, params: Record<string, unknown>, tasks: boolean): Record<string, unknown> => ({
  jsonrpc: '2.0',
  id,
  method,
  params: { ...params, _meta: { ...meta(tasks), ...(params._meta as object | undefined) } },
});

/** The built server on stdio, spoken to as Claude Code does. */
export function modernStdio(dirs: E2EDirs, extraEnv: Record<string, string> = {}): ModernClient {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [BIN, '--config', dirs.config], { cwd: dirs.repo, env: serverEnv(dirs, extraEnv) });
  const waiting = new Map<number, (a: RpcAnswer) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as RpcAnswer & { id?: number };
    if (typeof message.id === 'number') waiting.get(message.id)?.(message);
  });
  child.stderr.resume();
  let next = 0;
  return {
    pid: child.pid,
    request(method, params = {}, options = {}) {
      const id = ++next;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        child.stdin.write(`${JSON.stringify(body(id, method, params, options.tasks ?? true))}\n`);
      });
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin.end();
      await exited;
    },
  };
}

/** One POST per request, as the stateless protocol has it. */
export function modernHttp(url: string, token: string): ModernClient {
  let next = 0;
  return {
    async request(method, params = {}, options = {}) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28' },
        body: JSON.stringify(body(++next, method, params, options.tasks ?? true)),
      });
      return (await response.json()) as RpcAnswer;
    },
    close: () => Promise.resolve(),
  };
}
