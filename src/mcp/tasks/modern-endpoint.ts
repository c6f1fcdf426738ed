/**
 * The 2026-07-28 side of the server: answers one stateless request at a time for either transport.
 * `server/discover` and the tasks methods are answered here; everything else goes to the process's inner
 * McpServer (the same tools as for 2025-11-25 clients) and comes back with `resultType`.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { InnerServer } from './inner-server.js';
import type { TaskBoard } from './task-board.js';
import type { Channel } from './task-ids.js';
import { declaresTasks, failure, INVALID_PARAMS, isRequest, LEGACY_VERSION, missingTasks, MODERN_VERSION, modernResult, result, TASKS_EXTENSION, unsupportedVersion, versionOf, type Request } from './wire.js';

export interface ModernEndpoint {
  /** The answer to a 2026-07-28 message (undefined for a notification); `notify` carries a forwarded call's progress. */
  handle(message: JSONRPCMessage, channel: Channel, notify?: (m: JSONRPCMessage) => void): Promise<JSONRPCMessage | undefined>;
  close(): Promise<void>;
}

export interface ModernOptions {
  readonly name: string;
  readonly version: string;
  readonly instructions: string;
}

const NOT_FOUND = 'Failed to retrieve task: Task not found';

export function createModernEndpoint(inner: InnerServer, board: TaskBoard, options: ModernOptions): ModernEndpoint {
  const discover = (id: Request['id']): JSONRPCMessage =>
    result(id, {
      supportedVersions: [MODERN_VERSION, LEGACY_VERSION],
      capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
      instructions: options.instructions,
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: options.name, version: options.version } },
    });

  const tasksMethod = async (request: Request, channel: Channel): Promise<JSONRPCMessage> => {
    if (!declaresTasks(request)) return missingTasks(request.id);
    const taskId = request.params?.taskId;
    if (request.method === 'tasks/get') {
      const task = await board.get(taskId, channel);
      return task === undefined ? failure(request.id, INVALID_PARAMS, NOT_FOUND) : result(request.id, task);
    }
    // tasks/cancel, and tasks/update (localagents never asks for input, so an update only needs a known task).
    const known = request.method === 'tasks/cancel' ? await board.cancel(taskId, channel) : (await board.get(taskId, channel)) !== undefined;
    return known ? result(request.id, {}) : failure(request.id, INVALID_PARAMS, NOT_FOUND);
  };

  const forward = async (request: Request, notify?: (m: JSONRPCMessage) => void): Promise<JSONRPCMessage> => {
    const token = (request.params?._meta as { progressToken?: string | number } | undefined)?.progressToken;
    const relay = token === undefined || notify === undefined ? undefined : (p: object): void => notify({ jsonrpc: '2.0', method: 'notifications/progress', params: { ...p, progressToken: token } });
    const answer = await inner.request(request.method, request.params, relay);
    return modernResult(request.method, { ...answer, id: request.id });
  };

  return {
    async handle(message, channel, notify) {
      if (!isRequest(message)) return undefined;
      if (message.method === 'server/discover') return discover(message.id);
      if (versionOf(message) !== MODERN_VERSION) return unsupportedVersion(message.id, versionOf(message));
      if (message.method.startsWith('tasks/')) return tasksMethod(message, channel);
      if (message.method === 'tools/call' && declaresTasks(message)) {
        const started = await board.start(message.params ?? {}, channel);
        return 'task' in started ? { jsonrpc: '2.0', id: message.id, result: { resultType: 'task', ...started.task } } : modernResult('tools/call', { ...started.answer, id: message.id });
      }
      return forward(message, notify);
    },
    close: () => inner.close(),
  };
}
