/** The structured part of a localagents tool error, as a program reads it. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ERROR_META_KEY, type ToolErrorMeta } from '../../src/mcp/tool-result.js';

export function toolError(result: CallToolResult): ToolErrorMeta {
  if (!result.isError) throw new Error(`expected an error result, got ${JSON.stringify(result.content)}`);
  const meta = result._meta?.[ERROR_META_KEY];
  if (meta === undefined || meta === null || typeof meta !== 'object') throw new Error('error result without _meta error');
  // _meta is typed as a bag of unknowns; errorResult() is the only writer of this key.
  return meta as ToolErrorMeta;
}
