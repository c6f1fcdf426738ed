/**
 * One settled job as the usage index keeps it: a flat list with its strings
 * shared across the month, decoded back with every field checked (a row that is
 * not one we wrote is dropped, and its job read from its files again).
 */
import { isJobId } from '../coord/job-id-shape.js';
import type { JobRecord } from '../jobs/record/job-record.js';
import type { JobUsage } from './job-usage.js';
import type { CallerCost } from './transcripts/caller-cost.js';

/**
 * One job as a row: [id, status, created_at, model, endpoint, repo (the three as indexes into the month's
 * strings), turns, requests, evaluated, cache written, cached, output, GPU ms, caller calls, caller cost
 * ([reason] when unknown, else [model, turns, input, cache read, 5-minute write, 1-hour write, output, transcript],
 * strings as indexes), unreadable lines, half written (0/1), verify ([passed 0/1, fix turns, fix tokens] or 0),
 * prompt tokens/s per request, generation tokens/s per request]. Only a job whose caller cost is settled is kept.
 */
export type Row = readonly unknown[];
const ROW_LENGTH = 20;

function encodeCost(cost: CallerCost | undefined, ref: (s: string) => number): unknown[] {
  if (cost === undefined) return [];
  if ('unknown' in cost) return [ref(cost.unknown)];
  const t = cost.tokens;
  return [ref(cost.model), cost.turns, t.input, t.cacheRead, t.cacheWrite5m, t.cacheWrite1h, t.output, ref(cost.transcript), ...(cost.shared ? [1] : [])];
}

function decodeCost(stored: unknown, str: (i: unknown) => string | undefined): CallerCost | undefined | false {
  if (!Array.isArray(stored)) return false;
  if (stored.length === 0) return undefined;
  const [model, ...rest] = stored as unknown[];
  const first = str(model);
  if (first === undefined) return false;
  if (rest.length === 0) return { unknown: first };
  const [turns, input, cacheRead, cacheWrite5m, cacheWrite1h, output, transcript, shared] = rest;
  const counts = [turns, input, cacheRead, cacheWrite5m, cacheWrite1h, output];
  const file = str(transcript);
  if ((rest.length !== 7 && !(rest.length === 8 && shared === 1)) || !counts.every(isCount) || file === undefined) return false;
  const n = counts;
  const tokens = { input: n[1] as number, cacheRead: n[2] as number, cacheWrite5m: n[3] as number, cacheWrite1h: n[4] as number, output: n[5] as number };
  return { model: first, turns: n[0] as number, tokens, transcript: file, shared: shared === 1 };
}

export function encodeRow(job: JobUsage, strings: Map<string, number>): Row {
  const ref = (s: string): number => {
    let i = strings.get(s);
    if (i === undefined) strings.set(s, (i = strings.size));
    return i;
  };
  const v = job.verify;
  return [
    job.id, job.status, job.createdAt, ref(job.model), ref(job.endpoint), ref(job.repo),
    job.turns, job.requests, job.tokens.evaluated, job.tokens.cacheWritten, job.tokens.cached, job.tokens.output, job.gpuMs,
    job.caller.calls, encodeCost(job.caller.cost, ref), job.unreadableLines, job.halfWritten ? 1 : 0,
    v === undefined ? 0 : [v.passed ? 1 : 0, v.fixTurns, v.fixTokens],
    job.promptTokensPerS, job.generationTokensPerS,
  ];
}

export const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;
/** A count of things (speeds, bytes, ids), not a sum that may hold fractions (GPU ms). */
export const isWholeCount = (x: unknown): x is number => isCount(x) && Number.isInteger(x);
const isCounts = (xs: unknown): xs is number[] => Array.isArray(xs) && xs.every(isCount);
const STATUSES: ReadonlySet<string> = new Set<JobRecord['status']>(['queued', 'running', 'succeeded', 'failed', 'cancelled', 'timeout', 'interrupted']);

/** The job a row describes, or undefined for a row that is not one we wrote. */
export function decodeRow(row: unknown, strings: readonly string[]): JobUsage | undefined {
  if (!Array.isArray(row) || row.length !== ROW_LENGTH) return undefined;
  const [id, status, createdAt, model, endpoint, repo, ...rest] = row as unknown[];
  const [turns, requests, evaluated, cacheWritten, cached, output, gpuMs, calls, storedCost, unreadable, half, verify, prompt, generation] = rest;
  const str = (i: unknown): string | undefined => (Number.isInteger(i) ? strings[i as number] : undefined);
  const [m, e, r] = [str(model), str(endpoint), str(repo)];
  const counts = [turns, requests, evaluated, cacheWritten, cached, output, gpuMs, calls, unreadable];
  const cost = decodeCost(storedCost, str);
  if (typeof id !== 'string' || !isJobId(id) || typeof status !== 'string' || !STATUSES.has(status) || typeof createdAt !== 'string') return undefined;
  if (m === undefined || e === undefined || r === undefined || !counts.every(isCount) || (half !== 0 && half !== 1) || !isCounts(prompt) || !isCounts(generation)) return undefined;
  if (cost === false) return undefined;
  if (verify !== 0 && !(isCounts(verify) && verify.length === 3 && (verify[0] as number) <= 1)) return undefined;
  const v = verify as 0 | [number, number, number];
  return {
    id,
    status: status as JobRecord['status'],
    createdAt,
    model: m,
    endpoint: e,
    repo: r,
    turns: turns as number,
    requests: requests as number,
    tokens: { evaluated: evaluated as number, cacheWritten: cacheWritten as number, cached: cached as number, output: output as number },
    gpuMs: gpuMs as number,
    promptTokensPerS: prompt,
    generationTokensPerS: generation,
    caller: { calls: calls as number, cost, settled: cost !== undefined },
    verify: v === 0 ? undefined : { passed: v[0] === 1, fixTurns: v[1], fixTokens: v[2] },
    unreadableLines: unreadable as number,
    halfWritten: half === 1,
  };
}
