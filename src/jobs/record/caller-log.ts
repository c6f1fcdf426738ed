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
  /** `_meta["claudecode/toolUseId"]` of the call: the caller's tool_use block that made it, in its transcript. */
  readonly tool_use_id?: string;
  /** The caller's working directory (its transcript folder's name), when one caller owns the server (stdio). */
  readonly caller_cwd?: string;
  /** The caller's session id (its transcript file's name), when Claude Code gave it to the server. */
  readonly caller_session?: string;
  /** The jobs the call concerned, in order, when it was more than this one (its caller turns are shared among them). */
  readonly jobs?: readonly string[];
}

const entryShape: Shape = {
  type: 'object',
  properties: {
    t: { type: 'string' },
    tool: { type: 'string' },
    args_bytes: { type: 'number', minimum: 0 },
    result_bytes: { type: 'number', minimum: 0 },
    tool_use_id: { type: 'string' },
    caller_cwd: { type: 'string' },
    caller_session: { type: 'string' },
    jobs: { type: 'array', items: { type: 'string' } },
  },
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

/** Appends a line of either kind: a call, or the caller's cost. */
export async function appendCallerEntry(store: { readonly root: string; paths(id: string): { readonly caller: string } }, id: string, entry: CallerEntry | CallerCostLine): Promise<void> {
  const ledger = callerLedgerFile(store.root);
  // Noted after the append, so a reader that sees the note sees the line; and before it too, so a process
  // killed between the two still leaves a note (unless a reader came in that instant).
  await noteInLedger(ledger, id);
  await appendFile(store.paths(id).caller, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  await noteInLedger(ledger, id);
}

/**
 * What the job cost its caller, as measured from the caller's transcript once it was final (src/usage/transcripts):
 * how many of the job's calls it covers, and the caller's model and tokens, or why it is unknown. A later line wins.
 */
export interface CallerCostLine {
  readonly t: string;
  readonly caller_cost: {
    readonly calls: number;
    readonly unknown?: string;
    readonly model?: string;
    readonly turns?: number;
    readonly input?: number;
    readonly cache_read?: number;
    readonly cache_write_5m?: number;
    readonly cache_write_1h?: number;
    readonly output?: number;
    readonly transcript?: string;
    readonly shared?: boolean;
  };
}

const count: Shape = { type: 'number', minimum: 0 };
const costShape: Shape = {
  type: 'object',
  properties: {
    t: { type: 'string' },
    caller_cost: {
      type: 'object',
      properties: {
        calls: count, unknown: { type: 'string' }, model: { type: 'string' }, turns: count, input: count, cache_read: count,
        cache_write_5m: count, cache_write_1h: count, output: count, transcript: { type: 'string' }, shared: { type: 'boolean' },
      },
      required: ['calls'],
    },
  },
  required: ['t', 'caller_cost'],
};

/** A line of caller.jsonl (a call, or the caller's cost), or undefined for one cut short or edited. */
export function readCallerLine(line: string): { call: CallerEntry } | { cost: CallerCostLine } | undefined {
  try {
    const json: unknown = JSON.parse(line);
    const cost = typeof json === 'object' && json !== null && 'caller_cost' in json;
    if (cost) {
      const parsed = checkShape<CallerCostLine>(json, costShape);
      return parsed.ok ? { cost: parsed.value } : undefined;
    }
    const parsed = checkShape<CallerEntry>(json, entryShape);
    return parsed.ok ? { call: parsed.value } : undefined;
  } catch {
    return undefined;
  }
}
