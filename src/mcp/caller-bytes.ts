/**
 * Counts what each tool call about a job cost the calling Claude: the bytes of
 * its arguments (what it wrote: for run_agent, the brief) and of the result (what
 * it read), appended to the job's caller.jsonl as the result leaves the server.
 * The usage report sets this against what the local model did.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CallerEntry } from '../jobs/record/caller-log.js';
import { checkJobId } from '../jobs/record/job-id.js';

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

/** `server`, whose registerTool wraps every handler so its calls are counted into the job they concern. */
export function countingCallerBytes(server: McpServer, log: (id: string, entry: CallerEntry) => Promise<void>): McpServer {
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
      };
      // A job folder the disk refused, or one pruned meanwhile: the count is lost, the answer is not.
      await Promise.all(jobs.map((job) => log(job, entry).catch(() => undefined)));
      return result;
    }) as never)) as McpServer['registerTool'];
  return counting;
}
