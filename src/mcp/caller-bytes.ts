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

/** The jobs a call was about: the ids in its result (a job view's `id`, each of `jobs` for several), else a full id it was given. */
function jobsOf(args: unknown, result: CallToolResult): string[] {
  const structured = result.structuredContent;
  const several = Array.isArray(structured?.jobs) && structured.id === undefined ? (structured.jobs as unknown[]) : [];
  const ids = several.map((j) => asJobId(typeof j === 'object' && j !== null ? (j as Record<string, unknown>).id : undefined));
  if (ids.length > 0) return ids.filter((id) => id !== undefined);
  const given = typeof args === 'object' && args !== null ? (args as Record<string, unknown>).job_id : undefined;
  const one = asJobId(structured?.id) ?? asJobId(given);
  return one === undefined ? [] : [one];
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
      const jobs = jobsOf(args, result);
      // A call about several jobs (a list of briefs, a wait for several) is shared out evenly among them.
      const share = (bytes: number): number => Math.round(bytes / Math.max(1, jobs.length));
      const entry = {
        t: new Date().toISOString(),
        tool: name,
        args_bytes: share(Buffer.byteLength(JSON.stringify(args ?? {}), 'utf8')),
        result_bytes: share(Buffer.byteLength(JSON.stringify(result), 'utf8')),
        ...optional('tool_use_id', toolUseIdOf(extra)),
        ...optional('caller_cwd', place.cwd),
        ...optional('caller_session', place.session),
        ...(jobs.length > 1 ? { jobs } : {}),
      };
      // A job folder the disk refused, or one pruned meanwhile: the count is lost, the answer is not.
      await Promise.all(jobs.map((job) => log(job, entry).catch(() => undefined)));
      return result;
    }) as never)) as McpServer['registerTool'];
  return counting;
}
