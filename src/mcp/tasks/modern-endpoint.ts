/**
 * The 2026-07-28 side of the server: answers one stateless request at a time for either transport.
 * `server/discover` and the tasks methods are answered here; everything else goes to the process's inner
 * McpServer (the same tools as for 2025-11-25 clients) and comes back with `resultType`.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { InnerServer } from './inner-server.js';
import type { TaskBoard } from './task-board.js';
import type { Channel } from './task-ids.js';
import { discoverAnswer } from './discovery.js';
import { declaresTasks, failure, INVALID_PARAMS, isRequest, missingTasks, MODERN_VERSION, modernResult, result, unsupportedVersion, versionOf, type Request } from './wire.js';

export interface ModernEndpoint {
  /** The answer to a 2026-07-28 message (undefined for a notification); `notify` carries a forwarded call's progress. */
  handle(message: JSONRPCMessage, channel: Channel, notify?: (m: JSONRPCMessage) => void): Promise<JSONRPCMessage | undefined>;
  close(): Promise<void>;
}

const NOT_FOUND = 'Failed to retrieve task: Task not found';

/** `version`: the server's, as server/discover says it. */
export function createModernEndpoint(inner: InnerServer, board: TaskBoard, version: string): ModernEndpoint {
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
      if (message.method === 'server/discover') return discoverAnswer(message.id, version);
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
