/**
 * The McpServer that 2026-07-28 requests and tasks are served by, reached in process over the SDK's
 * in-memory transport: requests go in as raw JSON-RPC (the caller's arguments and `_meta` untouched, under
 * an id and progress token of our own) and come back as raw responses. One per process, shared by every
 * channel, so a task's background wait does not end with the HTTP request that started it.
 */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LEGACY_VERSION } from './wire.js';

export interface Progress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

export interface InnerServer {
  /** The response to `method`; `onProgress` gets the progress notifications sent for it. */
  request(method: string, params: Record<string, unknown> | undefined, onProgress?: (p: Progress) => void): Promise<JSONRPCMessage>;
  close(): Promise<void>;
}

export async function connectInner(server: McpServer, version: string): Promise<InnerServer> {
  const [ours, theirs] = InMemoryTransport.createLinkedPair();
  const waiting = new Map<number, (message: JSONRPCMessage) => void>();
  const progress = new Map<string, (p: Progress) => void>();
  let next = 0;
  ours.onmessage = (message) => {
    if ('id' in message && ('result' in message || 'error' in message) && typeof message.id === 'number') {
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    } else if ('method' in message && message.method === 'notifications/progress') {
      const params = message.params as unknown as { progressToken?: unknown } & Progress;
      progress.get(String(params.progressToken))?.(params);
    }
  };
  const request = async (method: string, params: Record<string, unknown> | undefined, onProgress?: (p: Progress) => void): Promise<JSONRPCMessage> => {
    const id = ++next;
    const token = `inner-${id}`;
    const meta = { ...(params?._meta as Record<string, unknown> | undefined), ...(onProgress ? { progressToken: token } : {}) };
    if (!onProgress) delete meta.progressToken;
    if (onProgress) progress.set(token, onProgress);
    try {
      return await new Promise<JSONRPCMessage>((resolve, reject) => {
        waiting.set(id, resolve);
        ours.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }).catch(reject);
      });
    } finally {
      progress.delete(token);
    }
  };
  await server.connect(theirs);
  await ours.start();
  await request('initialize', { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'localagents-tasks', version } });
  await ours.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    request,
    async close() {
      for (const resolve of waiting.values()) resolve({ jsonrpc: '2.0', id: 0, error: { code: -32603, message: 'the localagents server is closing' } });
      waiting.clear();
      await server.close();
    },
  };
}
