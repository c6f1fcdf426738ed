/**
 * What one job did, read from its folder: the record's status, model and turns,
 * every generation request in requests.jsonl (tokens, time, speeds), and what
 * it cost the calling Claude, as measured from its transcript and kept in
 * caller.jsonl (undefined until measured). Lines that cannot be read are counted,
 * never trusted and never fatal.
 */
import { readCallerLine, type CallerCostLine, type CallerEntry } from '../jobs/record/caller-log.js';
import { FINISHED, type JobRecord } from '../jobs/record/job-record.js';
import type { JobPaths } from '../jobs/record/job-store.js';
import { keptOf, type Kept } from '../jobs/record/outcome.js';
import { generationTokensPerS, promptTokensPerS, readRequestLine } from '../shim/request-log/request-line.js';
import { forEachLine } from './jsonl-lines.js';
import { costOfLine, unmeasurable, type CallerCost } from './transcripts/caller-cost.js';

/** Far beyond a requests.jsonl or caller.jsonl line (~500 bytes); a longer one is not ours. */
const MAX_LINE_BYTES = 1024 * 1024;

export interface TokenCounts {
  /** Prompt tokens the server evaluated. */
  readonly evaluated: number;
  /** Prompt tokens a backend said it wrote to a cache (Anthropic-style backends only). */
  readonly cacheWritten: number;
  /** Prompt tokens served from the KV cache. */
  readonly cached: number;
  readonly output: number;
}

export interface CallerSide {
  /** MCP tool calls about the job. */
  readonly calls: number;
  /** What those calls cost the caller, measured from its transcript (or why that is unknown); undefined until looked up. */
  readonly cost: CallerCost | undefined;
  /** The cost is on file and will not change (src/usage/transcripts/caller-cost.ts). */
  readonly settled: boolean;
}

export interface JobUsage {
  readonly id: string;
  readonly status: JobRecord['status'];
  readonly createdAt: string;
  readonly model: string;
  readonly endpoint: string;
  readonly repo: string;
  readonly turns: number;
  /** Generation requests (POST /v1/messages) in requests.jsonl. */
  readonly requests: number;
  readonly tokens: TokenCounts;
  /** Sum of the generation requests' durations. */
  readonly gpuMs: number;
  /** Per request, where measurable. */
  readonly promptTokensPerS: readonly number[];
  readonly generationTokensPerS: readonly number[];
  readonly caller: CallerSide;
  /** The job's verify command: whether it passed, and the turns and tokens spent fixing after failed checks. */
  readonly verify: { readonly passed: boolean; readonly fixTurns: number; readonly fixTokens: number } | undefined;
  /** What became of the work (src/jobs/record/outcome.ts): only a job not lost counts as saving anything. */
  readonly outcome: Kept;
  /** Lines of requests.jsonl or caller.jsonl that could not be read, and whether one of them ends mid-line. */
  readonly unreadableLines: number;
  readonly halfWritten: boolean;
}

/** The caller's model of a job with a measured caller cost, else '' (its sums are kept apart, never priced). */
export const callerModelOf = (job: JobUsage): string => (job.caller.cost !== undefined && 'model' in job.caller.cost ? job.caller.cost.model : '');

/** A job whose logs had lines that could not be read (not counted in the sums). */
export interface UnreadableLog {
  readonly id: string;
  readonly lines: number;
  readonly halfWritten: boolean;
}

function verifyUsage(record: JobRecord): JobUsage['verify'] {
  const v = record.verification;
  if (v === undefined) return undefined;
  const spent = v.spent_after_failures;
  return { passed: v.passed, fixTurns: spent?.turns ?? 0, fixTokens: spent === undefined ? 0 : spent.input_tokens + spent.cache_read_input_tokens + spent.output_tokens };
}

/** The cost on file, else what the calls alone say (a job no Claude Code called has no transcript to read). */
function callerSide(line: CallerCostLine | undefined, calls: readonly CallerEntry[], ended: boolean): CallerSide {
  const kept = costOfLine(line, calls);
  if (kept !== undefined) return { calls: calls.length, cost: kept, settled: true };
  const without = unmeasurable(calls, ended);
  return { calls: calls.length, cost: without?.cost, settled: without?.final ?? false };
}

/** The job's calls as caller.jsonl has them (for measuring their cost). */
export async function readCallerCalls(path: string): Promise<CallerEntry[]> {
  const calls: CallerEntry[] = [];
  await forEachLine(path, MAX_LINE_BYTES, (line) => {
    const entry = readCallerLine(line);
    if (entry !== undefined && 'call' in entry) calls.push(entry.call);
  });
  return calls;
}

/**
 * GPU time in ms, logged to the hundredth: each sum is kept at the nearest hundredth, so the total is exact whatever
 * order jobs and cells are added in (as plain doubles, 7.01 + 18.56 + 17.93 is 43.5 one way and 43.49999… the other,
 * and a report rounded to whole ms said 44 or 43 of the same jobs).
 */
export function addGpuMs(a: number, b: number): number {
  const sum = a + b;
  // A sum too large to scale by 100 (a damaged or hostile log line) is added as it is, not turned into Infinity.
  const inHundredths = Math.round(sum * 100) / 100;
  return Number.isFinite(inHundredths) ? inHundredths : sum;
}

export async function readJobUsage(record: JobRecord, paths: Pick<JobPaths, 'requests' | 'caller'>): Promise<JobUsage> {
  const tokens = { evaluated: 0, cacheWritten: 0, cached: 0, output: 0 };
  const promptSpeeds: number[] = [];
  const generationSpeeds: number[] = [];
  let requests = 0;
  let gpuMs = 0;
  let unreadable = 0;
  const requestVisit = await forEachLine(paths.requests, MAX_LINE_BYTES, (line) => {
    const read = readRequestLine(line);
    if (read.kind === 'unreadable') unreadable++;
    if (read.kind !== 'generation') return;
    const r = read.request;
    requests++;
    gpuMs = addGpuMs(gpuMs, r.totalMs);
    tokens.evaluated += r.evaluated;
    tokens.cacheWritten += r.cacheWritten;
    tokens.cached += r.cached;
    tokens.output += r.output;
    const prompt = promptTokensPerS(r);
    if (prompt !== undefined) promptSpeeds.push(prompt);
    const generation = generationTokensPerS(r);
    if (generation !== undefined) generationSpeeds.push(generation);
  });
  const calls: CallerEntry[] = [];
  let costLine: CallerCostLine | undefined;
  const callerVisit = await forEachLine(paths.caller, MAX_LINE_BYTES, (line) => {
    const entry = readCallerLine(line);
    if (entry === undefined) unreadable++;
    else if ('call' in entry) calls.push(entry.call);
    else costLine = entry.cost;
  });
  return {
    id: record.id,
    status: record.status,
    createdAt: record.created_at,
    model: record.model.served ?? record.model.requested ?? '(none)',
    endpoint: record.model.endpoint ?? '(none)',
    repo: record.cwd,
    turns: record.num_turns,
    requests,
    tokens,
    gpuMs,
    promptTokensPerS: promptSpeeds,
    generationTokensPerS: generationSpeeds,
    caller: callerSide(costLine, calls, FINISHED.has(record.status)),
    verify: verifyUsage(record),
    outcome: keptOf(record),
    unreadableLines: unreadable + requestVisit.tooLong + callerVisit.tooLong,
    halfWritten: requestVisit.halfWritten || callerVisit.halfWritten,
  };
}
