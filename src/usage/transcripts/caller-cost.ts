/**
 * What a job cost its caller, measured: the tokens of the caller turns attributed to
 * it (caller-turns.ts) in the caller's own transcript, on the model that transcript
 * names. When the transcript cannot be found the cost is unknown, with the reason;
 * it is never guessed. A result is final once the turn that read the job's last
 * result is on file (or a day after the job ended, when it will not appear).
 */
import type { CallerCostLine, CallerEntry } from '../../jobs/record/caller-log.js';
import { attributedTurns } from './caller-turns.js';
import { projectsRoot, transcriptFiles } from './transcript-files.js';
import { scanTranscript, type CallerTokens, type TranscriptScan } from './transcript-turns.js';

export type CallerCost =
  | {
      readonly model: string;
      readonly turns: number;
      readonly tokens: CallerTokens;
      readonly transcript: string;
      /** Some of its turns were shared with other calls or jobs: its part of them is an even split (caller-turns.ts). */
      readonly shared: boolean;
    }
  | { readonly unknown: string };

export interface ResolvedCallerCost {
  readonly cost: CallerCost;
  /** Will not change: written to the job's caller.jsonl, not looked up again. */
  readonly final: boolean;
}

/** A turn Claude Code writes itself (an API error it reports as the model's answer): no request, no usage. */
const SYNTHETIC = '<synthetic>';
/** After this, a transcript that still lacks the job's calls will not get them. */
const SETTLE_MS = 86_400_000;

/** One report's reads of transcripts: each file is scanned once however many jobs it holds. */
export interface TranscriptReader {
  readonly root: string;
  scan(file: string): Promise<TranscriptScan | { readonly skipped: string }>;
}

export function transcriptReader(env: Readonly<Record<string, string | undefined>>, home?: string): TranscriptReader {
  const root = projectsRoot(env, home);
  const scans = new Map<string, Promise<TranscriptScan | { skipped: string }>>();
  return {
    root,
    scan(file) {
      let scan = scans.get(file);
      if (scan === undefined) scans.set(file, (scan = scanTranscript(file).catch((err: unknown) => ({ skipped: `${file}: ${(err as Error).message}` }))));
      return scan;
    },
  };
}

const sum = (a: CallerTokens, b: CallerTokens): CallerTokens => ({
  input: a.input + b.input,
  cacheRead: a.cacheRead + b.cacheRead,
  cacheWrite5m: a.cacheWrite5m + b.cacheWrite5m,
  cacheWrite1h: a.cacheWrite1h + b.cacheWrite1h,
  output: a.output + b.output,
});
const ZERO: CallerTokens = { input: 0, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, output: 0 };

const unknown = (why: string, final: boolean): ResolvedCallerCost => ({ cost: { unknown: why }, final });

/** What the calls alone say, with no transcript read: why the cost cannot be measured, or undefined when it may be. */
export function unmeasurable(calls: readonly CallerEntry[], ended: boolean): ResolvedCallerCost | undefined {
  if (calls.length === 0) return unknown('no calling Claude: the job was not started through MCP', ended);
  if (!calls.some((c) => c.tool_use_id !== undefined)) return unknown('the caller sent no tool_use id (not Claude Code, or a version before it did)', true);
  if (!calls.some((c) => c.caller_cwd !== undefined)) return unknown('the MCP server was shared (HTTP), so the caller\'s project, and its transcript, is not known', true);
  return undefined;
}

/** `calls`: job `job`'s caller.jsonl call lines; `endedAt`: when the job ended, if it has. */
export async function resolveCallerCost(job: string, calls: readonly CallerEntry[], endedAt: string | undefined, reader: TranscriptReader, now: Date): Promise<ResolvedCallerCost> {
  const settled = endedAt !== undefined && now.getTime() - Date.parse(endedAt) > SETTLE_MS;
  const without = unmeasurable(calls, endedAt !== undefined);
  if (without !== undefined) return without;
  const jobCalls = calls.flatMap((c) => (c.tool_use_id === undefined ? [] : [{ toolUseId: c.tool_use_id, ...(c.jobs === undefined ? {} : { jobs: c.jobs }) }]));
  const cwd = calls.find((c) => c.caller_cwd !== undefined)?.caller_cwd ?? '';
  const found = await transcriptFiles(reader.root, cwd);
  if (found.none !== undefined) return unknown(found.none, settled);
  const session = calls.find((c) => c.caller_session !== undefined)?.caller_session;
  const ordered = session === undefined ? found.files : [...found.files].sort((a, b) => Number(b.endsWith(`/${session}.jsonl`)) - Number(a.endsWith(`/${session}.jsonl`)));
  const scans: TranscriptScan[] = [];
  const skipped = found.skipped.map((s) => `${s.file}: ${s.reason}`);
  for (const file of ordered) {
    const scan = await reader.scan(file);
    if ('turns' in scan) scans.push(scan);
    else skipped.push(scan.skipped);
  }
  const turns = attributedTurns(scans, jobCalls, job);
  if (turns === undefined) {
    const also = skipped.length === 0 ? '' : `; skipped: ${skipped.join('; ')}`;
    return unknown(`the job's calls are in none of the ${scans.length} newest transcripts in ${found.folder ?? reader.root}${also}`, settled);
  }
  const billed = turns.shares.filter((t) => t.model !== SYNTHETIC);
  const models = [...new Set(billed.map((t) => t.model))];
  if (models.length > 1) return unknown(`the caller's turns for this job ran on several models (${models.join(', ')})`, turns.complete && endedAt !== undefined);
  const cost = {
    model: models[0] ?? '(none)',
    turns: billed.reduce((n, t) => n + t.turns, 0),
    tokens: billed.map((t) => t.tokens).reduce(sum, ZERO),
    transcript: turns.file,
    shared: billed.some((t) => t.shared),
  };
  return { cost, final: (turns.complete && endedAt !== undefined) || settled };
}

/** The cost a caller.jsonl line keeps, while it covers every call on file (a later call makes it stale). */
export function costOfLine(line: CallerCostLine | undefined, calls: readonly CallerEntry[]): CallerCost | undefined {
  const c = line?.caller_cost;
  if (c === undefined || c.calls !== calls.length) return undefined;
  if (c.unknown !== undefined) return { unknown: c.unknown };
  const n = (x: number | undefined): number => x ?? 0;
  const tokens = { input: n(c.input), cacheRead: n(c.cache_read), cacheWrite5m: n(c.cache_write_5m), cacheWrite1h: n(c.cache_write_1h), output: n(c.output) };
  return { model: c.model ?? '(none)', turns: n(c.turns), tokens, transcript: c.transcript ?? '', shared: c.shared === true };
}

/** The line that keeps a final cost, covering `calls` calls. */
export function lineOfCost(cost: CallerCost, calls: number, now: Date): CallerCostLine {
  if ('unknown' in cost) return { t: now.toISOString(), caller_cost: { calls, unknown: cost.unknown } };
  const t = cost.tokens;
  return {
    t: now.toISOString(),
    caller_cost: {
      calls, model: cost.model, turns: cost.turns, input: t.input, cache_read: t.cacheRead, cache_write_5m: t.cacheWrite5m,
      cache_write_1h: t.cacheWrite1h, output: t.output, transcript: cost.transcript, ...(cost.shared ? { shared: true } : {}),
    },
  };
}
