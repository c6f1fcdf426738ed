/**
 * Which of the caller's turns a job cost it, and how much of each. Counted, from the caller's own transcript:
 * - every turn whose tool calls all went to localagents and at least one of them to this job;
 * - and the turn that read the result of the job's last call, unless that turn called localagents itself
 *   (then it is a turn of those calls).
 * A turn that also called another tool is the caller's own work. A counted turn is shared out, never counted
 * once per job: evenly among its localagents calls (the reading turn: among the calls whose results it read),
 * then a call about several jobs (a list of briefs, a wait for several) evenly among them. Shares are whole
 * tokens and whole turns, the remainder going to the later calls and jobs, so the jobs' costs add up to the
 * turns exactly. A call that concerned no job (list_models) keeps its share: it is nobody's delegation.
 */
import type { CallerTokens, CallerTurn, TranscriptScan } from './transcript-turns.js';

/** One of the job's calls: its tool_use id, and the jobs it concerned, in order (absent: only this job). */
export interface JobCall {
  readonly toolUseId: string;
  readonly jobs?: readonly string[];
}

/** The job's part of one caller turn. */
export interface TurnShare {
  readonly model: string;
  /** 1 for the turn's first share-holder, 0 for the others, so turns add up as tokens do. */
  readonly turns: number;
  readonly tokens: CallerTokens;
  /** The turn was shared with other calls or jobs. */
  readonly shared: boolean;
}

export interface AttributedTurns {
  readonly shares: readonly TurnShare[];
  /** The turn that read the last call's result is in the transcript: nothing more will be added. */
  readonly complete: boolean;
  /** The transcript that held the calls. */
  readonly file: string;
}

/** `mcp__localagents__` of `mcp__localagents__wait_job`: the tools of the server the job's calls went to. */
const serverPrefix = (name: string): string | undefined => /^(mcp__.+?__)[^_]/.exec(name)?.[1];

/** Part `i` of `n` of a whole number, so the n parts are whole and add up to it exactly. */
const part = (whole: number, i: number, n: number): number => Math.floor((whole * (i + 1)) / n) - Math.floor((whole * i) / n);

/** The job's share of `turn`: `slots` of its `n` equal slots, each slot split again among `of` jobs at `index`. */
function shareOf(turn: CallerTurn, slots: readonly { slot: number; index: number; of: number }[], n: number): TurnShare {
  const take = (whole: number): number => slots.reduce((sum, s) => sum + part(part(whole, s.slot, n), s.index, s.of), 0);
  const t = turn.tokens;
  return {
    model: turn.model,
    turns: take(1),
    tokens: { input: take(t.input), cacheRead: take(t.cacheRead), cacheWrite5m: take(t.cacheWrite5m), cacheWrite1h: take(t.cacheWrite1h), output: take(t.output) },
    shared: n > 1 || slots.some((s) => s.of > 1),
  };
}

/**
 * The job's shares of turns from the first scan (newest transcript first) that holds its last call, or
 * undefined when none does. `calls` are the job's recorded calls, in call order; `job` is its id.
 */
export function attributedTurns(scans: readonly TranscriptScan[], calls: readonly JobCall[], job: string): AttributedTurns | undefined {
  const last = calls[calls.length - 1];
  if (last === undefined) return undefined;
  const own = new Map(calls.map((c) => [c.toolUseId, c]));
  const slotOf = (id: string, slot: number): { slot: number; index: number; of: number } => {
    const jobs = own.get(id)?.jobs ?? [job];
    return { slot, index: Math.max(0, jobs.indexOf(job)), of: Math.max(1, jobs.length) };
  };
  for (const scan of scans) {
    const calling = scan.turns.find((t) => t.toolUses.some((u) => u.id === last.toolUseId));
    if (calling === undefined) continue;
    const prefix = serverPrefix(calling.toolUses.find((u) => u.id === last.toolUseId)?.name ?? '');
    const ours = (name: string): boolean => prefix !== undefined && name.startsWith(prefix);
    const shares: TurnShare[] = [];
    for (const turn of scan.turns) {
      const uses = turn.toolUses;
      if (uses.length === 0 || !uses.every((u) => ours(u.name)) || !uses.some((u) => own.has(u.id))) continue;
      shares.push(shareOf(turn, uses.flatMap((u, slot) => (own.has(u.id) ? [slotOf(u.id, slot)] : [])), uses.length));
    }
    const readAt = scan.resultAt.get(last.toolUseId);
    const reading = readAt === undefined ? undefined : scan.turns.find((t) => t.at > readAt);
    if (reading !== undefined && !reading.toolUses.some((u) => ours(u.name))) {
      // Read together with the results of the calling turn's other localagents calls: shared among them.
      const read = calling.toolUses.filter((u) => ours(u.name));
      shares.push(shareOf(reading, read.flatMap((u, slot) => (u.id === last.toolUseId ? [slotOf(u.id, slot)] : [])), read.length));
    }
    return { shares, complete: reading !== undefined, file: scan.file };
  }
  return undefined;
}
