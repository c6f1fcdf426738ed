/**
 * The answer to server/discover: what this server speaks (2026-07-28 with the tasks extension, and 2025-11-25
 * through initialize), its name, version and instructions. One source for the full server (modern-endpoint.ts)
 * and the stdio hold (stdio-hold.ts), which answers Claude Code's probe before the rest has loaded: nothing this
 * imports may load the MCP SDK.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { SERVER_INSTRUCTIONS, SERVER_NAME } from '../guidance.js';
import { LEGACY_VERSION, MODERN_VERSION, result, TASKS_EXTENSION, type Id } from './wire.js';

export function discoverAnswer(id: Id, version: string): JSONRPCMessage {
  return result(id, {
    supportedVersions: [MODERN_VERSION, LEGACY_VERSION],
    capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
    instructions: SERVER_INSTRUCTIONS,
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: SERVER_NAME, version } },
  });
}
