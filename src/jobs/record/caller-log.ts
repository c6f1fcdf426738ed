/**
 * caller.jsonl: one line per MCP tool call the calling Claude made about a job
 * (run_agent, wait_job, job_status, job_log, …): how many bytes it sent and how
 * many it got back. That is what delegating cost the caller's context; the usage
 * report turns it into tokens. Appended (one write a line, so the lines of
 * several processes never interleave), owner-readable.
 *
 * Every append is also noted, as the job's id, in the state directory's caller
 * ledger (usage-index/caller-ledger.log): the usage index (src/usage/usage-index.ts)
 * keeps a finished job's sums, and a caller.jsonl that grows after its job ended
 * (job_status, job_log) is found there instead of by reading 10,000 files.
 */
import { appendFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { privateDir } from '../../coord/private-files.js';
import { isErrno } from '../../errors.js';
import { checkShape, type Shape } from '../../json-shape.js';
import { callerLedgerFile } from './state-paths.js';

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

async function noteInLedger(ledger: string, id: string): Promise<void> {
  try {
    await appendFile(ledger, `${id}\n`, { mode: 0o600 });
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
    await privateDir(dirname(ledger));
    await appendFile(ledger, `${id}\n`, { mode: 0o600 });
  }
}

export async function appendCallerEntry(store: { readonly root: string; paths(id: string): { readonly caller: string } }, id: string, entry: CallerEntry): Promise<void> {
  const ledger = callerLedgerFile(store.root);
  // Noted after the append, so a reader that sees the note sees the line; and before it too, so a process
  // killed between the two still leaves a note (unless a reader came in that instant).
  await noteInLedger(ledger, id);
  await appendFile(store.paths(id).caller, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  await noteInLedger(ledger, id);
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
