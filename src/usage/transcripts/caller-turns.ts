/**
 * Which of the caller's turns a job cost it. Counted, from the caller's own transcript:
 * - every turn whose tool calls all went to this job (their tool_use ids are the ones
 *   the job's caller.jsonl recorded: run_agent, wait_job, job_status, job_log, …);
 * - and the turn that read the result of the job's last call, unless that turn also
 *   called localagents about something else (then it is that call's turn).
 * Nothing else: a turn that called localagents and another tool is the caller's own work.
 */
import type { CallerTurn, TranscriptScan } from './transcript-turns.js';

export interface AttributedTurns {
  readonly turns: readonly CallerTurn[];
  /** The turn that read the last call's result is in the transcript: nothing more will be added. */
  readonly complete: boolean;
  /** The transcript that held the calls. */
  readonly file: string;
}

/** `mcp__localagents__` of `mcp__localagents__wait_job`: the tools of the server the job's calls went to. */
const serverPrefix = (name: string): string | undefined => /^(mcp__.+?__)[^_]/.exec(name)?.[1];

/**
 * The job's turns from the first scan (newest transcript first) that holds its last call,
 * or undefined when none does. `ids` are the job's recorded tool_use ids, in call order.
 */
export function attributedTurns(scans: readonly TranscriptScan[], ids: readonly string[]): AttributedTurns | undefined {
  const last = ids[ids.length - 1];
  if (last === undefined) return undefined;
  const own = new Set(ids);
  for (const scan of scans) {
    const calling = scan.turns.find((t) => t.toolUses.some((u) => u.id === last));
    if (calling === undefined) continue;
    const prefix = serverPrefix(calling.toolUses.find((u) => u.id === last)?.name ?? '');
    const onlyOwn = (t: CallerTurn): boolean => t.toolUses.length > 0 && t.toolUses.every((u) => own.has(u.id));
    const counted = scan.turns.filter(onlyOwn);
    const readAt = scan.resultAt.get(last);
    const reading = readAt === undefined ? undefined : scan.turns.find((t) => t.at > readAt);
    if (reading !== undefined && !onlyOwn(reading) && !reading.toolUses.some((u) => prefix !== undefined && u.name.startsWith(prefix))) counted.push(reading);
    return { turns: counted, complete: reading !== undefined, file: scan.file };
  }
  return undefined;
}
