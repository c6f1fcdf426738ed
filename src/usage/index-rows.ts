/**
 * One settled job as the usage index keeps it: a flat list with its strings
 * shared across the month, decoded back with every field checked (a row that is
 * not one we wrote is dropped, and its job read from its files again).
 */
import { isJobId } from '../coord/job-id-shape.js';
import type { JobRecord } from '../jobs/record/job-record.js';
import type { JobUsage } from './job-usage.js';

/**
 * One job as a row: [id, status, created_at, model, endpoint, repo (the three as indexes into the month's
 * strings), turns, requests, evaluated, cache written, cached, output, GPU ms, caller calls, caller args bytes,
 * caller result bytes, unreadable lines, half written (0/1), verify ([passed 0/1, fix turns, fix tokens] or 0),
 * prompt tokens/s per request, generation tokens/s per request].
 */
export type Row = readonly unknown[];
const ROW_LENGTH = 21;

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
    job.caller.calls, job.caller.argsBytes, job.caller.resultBytes, job.unreadableLines, job.halfWritten ? 1 : 0,
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
  const [turns, requests, evaluated, cacheWritten, cached, output, gpuMs, calls, argsBytes, resultBytes, unreadable, half, verify, prompt, generation] = rest;
  const str = (i: unknown): string | undefined => (Number.isInteger(i) ? strings[i as number] : undefined);
  const [m, e, r] = [str(model), str(endpoint), str(repo)];
  const counts = [turns, requests, evaluated, cacheWritten, cached, output, gpuMs, calls, argsBytes, resultBytes, unreadable];
  if (typeof id !== 'string' || !isJobId(id) || typeof status !== 'string' || !STATUSES.has(status) || typeof createdAt !== 'string') return undefined;
  if (m === undefined || e === undefined || r === undefined || !counts.every(isCount) || (half !== 0 && half !== 1) || !isCounts(prompt) || !isCounts(generation)) return undefined;
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
    caller: { calls: calls as number, argsBytes: argsBytes as number, resultBytes: resultBytes as number },
    verify: v === 0 ? undefined : { passed: v[0] === 1, fixTurns: v[1], fixTokens: v[2] },
    unreadableLines: unreadable as number,
    halfWritten: half === 1,
  };
}
