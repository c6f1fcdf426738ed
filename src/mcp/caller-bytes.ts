/**
 * Notes each tool call about a job in the job's caller.jsonl as the result leaves
 * the server: the id of the caller's tool_use block that made it (Claude Code sends
 * it as `_meta["claudecode/toolUseId"]`), where the caller runs when one caller owns
 * this server, and the bytes of the arguments and the result. The usage report finds
 * the caller's turns by the id in the caller's own transcript (src/usage/transcripts).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CallerEntry } from '../jobs/record/caller-log.js';
import { checkJobId } from '../jobs/record/job-id.js';

/** Where the caller runs, when this server has one caller (stdio): its cwd names its transcript folder. */
export interface CallerPlace {
  readonly cwd?: string | undefined;
  readonly session?: string | undefined;
}

/** A tool_use id as Claude Code writes them (`toolu_…`); anything else is not kept. */
const TOOL_USE_ID = /^[A-Za-z0-9_-]{1,200}$/;

function toolUseIdOf(extra: unknown): string | undefined {
  const meta = typeof extra === 'object' && extra !== null ? (extra as { _meta?: unknown })._meta : undefined;
  const id = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)['claudecode/toolUseId'] : undefined;
  return typeof id === 'string' && TOOL_USE_ID.test(id) ? id : undefined;
}

type AnyHandler = (args: unknown, extra: unknown) => CallToolResult | Promise<CallToolResult>;

/** A full job id, or undefined. */
function asJobId(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    return checkJobId(value);
  } catch {
    return undefined;
  }
}

/** The job a call was about: the id in its result (job views carry `id`, job_log `job_id`), else a full id it was given. */
function jobOf(args: unknown, result: CallToolResult): string | undefined {
  const structured = result.structuredContent;
  const given = typeof args === 'object' && args !== null ? (args as Record<string, unknown>).job_id : undefined;
  return asJobId(structured?.id) ?? asJobId(structured?.job_id) ?? asJobId(given);
}

const optional = <K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, string>>;

/** `server`, whose registerTool wraps every handler so its calls are counted into the job they concern. */
export function countingCallerBytes(server: McpServer, log: (id: string, entry: CallerEntry) => Promise<void>, place: CallerPlace = {}): McpServer {
  const register = server.registerTool.bind(server);
  const counting = Object.create(server) as McpServer;
  // The SDK's registerTool is generic over each tool's schema; the wrapper passes arguments through untouched.
  counting.registerTool = ((name: string, config: never, handler: AnyHandler) =>
    register(name, config, (async (args: unknown, extra: unknown) => {
      const result = await handler(args, extra);
      const job = jobOf(args, result);
      if (job !== undefined) {
        const entry = {
          t: new Date().toISOString(),
          tool: name,
          args_bytes: Buffer.byteLength(JSON.stringify(args ?? {}), 'utf8'),
          result_bytes: Buffer.byteLength(JSON.stringify(result), 'utf8'),
          ...optional('tool_use_id', toolUseIdOf(extra)),
          ...optional('caller_cwd', place.cwd),
          ...optional('caller_session', place.session),
        };
        // A job folder the disk refused, or one pruned meanwhile: the count is lost, the answer is not.
        await log(job, entry).catch(() => undefined);
      }
      return result;
    }) as never)) as McpServer['registerTool'];
  return counting;
}
