/**
 * caller.jsonl: one line per MCP tool call the calling Claude made about a job
 * (run_agent, wait_job, job_status, job_log, …): how many bytes it sent and how
 * many it got back. That is what delegating cost the caller's context; the usage
 * report turns it into tokens. Appended (one write a line, so the lines of
 * several processes never interleave), owner-readable.
 */
import { appendFile } from 'node:fs/promises';
import { checkShape, type Shape } from '../json-shape.js';

export interface CallerEntry {
  readonly t: string;
  readonly tool: string;
  /** The call's arguments as JSON: what the caller wrote (for run_agent, the brief). */
  readonly args_bytes: number;
  /** The tool result as JSON: what the caller read. */
  readonly result_bytes: number;
}

const entryShape: Shape = {
  type: 'object',
  properties: { t: { type: 'string' }, tool: { type: 'string' }, args_bytes: { type: 'number', minimum: 0 }, result_bytes: { type: 'number', minimum: 0 } },
  required: ['t', 'tool', 'args_bytes', 'result_bytes'],
};

export async function appendCallerEntry(file: string, entry: CallerEntry): Promise<void> {
  await appendFile(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
}

/** A line of caller.jsonl, or undefined for one cut short or edited. */
export function readCallerLine(line: string): CallerEntry | undefined {
  try {
    const parsed = checkShape<CallerEntry>(JSON.parse(line), entryShape);
    return parsed.ok ? parsed.value : undefined;
  } catch {
    return undefined;
  }
}
