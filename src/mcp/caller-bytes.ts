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

/** The job a call was about: the id in its result (job views carry `id`, job_log `job_id`), else a full id it was given. */
function jobOf(args: unknown, result: CallToolResult): string | undefined {
  const structured = result.structuredContent;
  const given = typeof args === 'object' && args !== null ? (args as Record<string, unknown>).job_id : undefined;
  return asJobId(structured?.id) ?? asJobId(structured?.job_id) ?? asJobId(given);
}

/** `server`, whose registerTool wraps every handler so its calls are counted into the job they concern. */
export function countingCallerBytes(server: McpServer, log: (id: string, entry: CallerEntry) => Promise<void>): McpServer {
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
        };
        // A job folder the disk refused, or one pruned meanwhile: the count is lost, the answer is not.
        await log(job, entry).catch(() => undefined);
      }
      return result;
    }) as never)) as McpServer['registerTool'];
  return counting;
}
