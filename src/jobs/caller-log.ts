/**
 * caller.jsonl: one line per MCP tool call the calling Claude made about a job
 * (run_agent, wait_job, job_status, job_log, …): how many bytes it sent and how
 * many it got back. That is what delegating cost the caller's context; the usage
 * report turns it into tokens. Appended (one write a line, so the lines of
 * several processes never interleave), owner-readable.
 */
import { appendFile } from 'node:fs/promises';
import { z } from 'zod';

export interface CallerEntry {
  readonly t: string;
  readonly tool: string;
  /** The call's arguments as JSON: what the caller wrote (for run_agent, the brief). */
  readonly args_bytes: number;
  /** The tool result as JSON: what the caller read. */
  readonly result_bytes: number;
}

const entrySchema = z.object({ t: z.string(), tool: z.string(), args_bytes: z.number().nonnegative(), result_bytes: z.number().nonnegative() });

export async function appendCallerEntry(file: string, entry: CallerEntry): Promise<void> {
  await appendFile(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
}

/** A line of caller.jsonl, or undefined for one cut short or edited. */
export function readCallerLine(line: string): CallerEntry | undefined {
  try {
    const parsed = entrySchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
