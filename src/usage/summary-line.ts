/**
 * A line of the usage store (summary-store.ts): a JSON list, the job's id first. A job's files changed:
 * `["<id>","changed"]`. A job's summary: `["<id>", as_of, status, created_at, model, endpoint, repo, turns,
 * requests, [evaluated, cache written, cached, output], GPU ms, [prompt tokens/s per request], [generation
 * tokens/s per request], [caller calls, settled 0/1, cost], verify ([passed 0/1, fix turns, fix tokens] or 0),
 * unreadable lines, half written 0/1, outcome (0 unknown, 1 kept, 2 lost)]`, the cost [] (not looked up), [why unknown] or [model, turns, input,
 * cache read, 5-minute write, 1-hour write, output, transcript, turns shared with other jobs 0/1]. A list, not an object: half the bytes to read
 * and parse (a year's 10,000 jobs as objects cost `usage` ~1.5× a bare Node start more). Checked field by field.
 */
import { isJobId } from '../jobs/record/job-id.js';
import type { JobUsage } from './job-usage.js';
import type { CallerCost } from './transcripts/caller-cost.js';
import { isCount, isCounts } from './usage-sums.js';

export const CHANGED = 'changed';
const LENGTH = 18;
const OUTCOMES = ['unknown', 'kept', 'lost'] as const;

const isFlag = (x: unknown): x is 0 | 1 => x === 0 || x === 1;
const isText = (x: unknown): x is string => typeof x === 'string';
const STATUSES: ReadonlySet<unknown> = new Set<JobUsage['status']>(['queued', 'running', 'succeeded', 'failed', 'cancelled', 'timeout', 'interrupted']);

function costList(cost: CallerCost | undefined): unknown[] {
  if (cost === undefined) return [];
  if ('unknown' in cost) return [cost.unknown];
  const t = cost.tokens;
  return [cost.model, cost.turns, t.input, t.cacheRead, t.cacheWrite5m, t.cacheWrite1h, t.output, cost.transcript, cost.shared ? 1 : 0];
}

/** The cost a list keeps, undefined for none looked up, or false for a list that is not one we wrote. */
function costOf(x: unknown): CallerCost | undefined | false {
  if (!Array.isArray(x)) return false;
  if (x.length === 0) return undefined;
  if (x.length === 1) return isText(x[0]) && { unknown: x[0] };
  const [model, turns, input, cacheRead, cacheWrite5m, cacheWrite1h, output, transcript, shared] = x as unknown[];
  if (x.length !== 9 || !isText(model) || !isText(transcript) || !isFlag(shared) || !isCounts([turns, input, cacheRead, cacheWrite5m, cacheWrite1h, output])) return false;
  const tokens = { input: input as number, cacheRead: cacheRead as number, cacheWrite5m: cacheWrite5m as number, cacheWrite1h: cacheWrite1h as number, output: output as number };
  return { model, turns: turns as number, tokens, transcript, shared: shared === 1 };
}

/** A settled job's summary line (its newline included), true as of the month file's size `asOf`. */
export function summaryLine(job: JobUsage, asOf: number): string {
  const t = job.tokens;
  const v = job.verify;
  return `${JSON.stringify([
    job.id, asOf, job.status, job.createdAt, job.model, job.endpoint, job.repo, job.turns, job.requests,
    [t.evaluated, t.cacheWritten, t.cached, t.output], job.gpuMs, job.promptTokensPerS, job.generationTokensPerS,
    [job.caller.calls, job.caller.settled ? 1 : 0, costList(job.caller.cost)],
    v === undefined ? 0 : [v.passed ? 1 : 0, v.fixTurns, v.fixTokens], job.unreadableLines, job.halfWritten ? 1 : 0, OUTCOMES.indexOf(job.outcome),
  ])}\n`;
}

/** A summary with the month file's size it is true as of, a change of a job's files, or undefined for a damaged line. */
export function decodeLine(line: string): { job: JobUsage; asOf: number } | { changed: [string] } | undefined {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!Array.isArray(json) || !isText(json[0]) || !isJobId(json[0])) return undefined;
  if (json.length === 2 && json[1] === CHANGED) return { changed: [json[0]] };
  if (json.length !== LENGTH) return undefined;
  const [id, asOf, status, createdAt, model, endpoint, repo, turns, requests, tokens, gpuMs, prompt, generation, caller, verify, unreadable, half, fate] = json as unknown[];
  const outcome = OUTCOMES[fate as number];
  const [calls, settled, storedCost] = Array.isArray(caller) ? (caller as unknown[]) : [];
  const cost = costOf(storedCost);
  const v = verify === 0 ? undefined : isCounts(verify, 3) && isFlag(verify[0]) ? verify : false;
  const fits =
    Number.isInteger(asOf) && isCount(asOf) && STATUSES.has(status) && isText(createdAt) && Number.isFinite(Date.parse(createdAt)) && isText(model) && isText(endpoint) && isText(repo) &&
    isCount(turns) && isCount(requests) && isCounts(tokens, 4) && isCount(gpuMs) && isCounts(prompt) && isCounts(generation) && isCount(calls) && isFlag(settled) &&
    cost !== false && v !== false && isCount(unreadable) && isFlag(half) && Number.isInteger(fate) && outcome !== undefined;
  if (!fits) return undefined;
  const [evaluated, cacheWritten, cached, output] = tokens;
  const job: JobUsage = {
    id: id as string, status: status as JobUsage['status'], createdAt, model, endpoint, repo, turns, requests,
    tokens: { evaluated: evaluated as number, cacheWritten: cacheWritten as number, cached: cached as number, output: output as number },
    gpuMs, promptTokensPerS: prompt, generationTokensPerS: generation, caller: { calls, cost, settled: settled === 1 },
    verify: v === undefined ? undefined : { passed: v[0] === 1, fixTurns: v[1] as number, fixTokens: v[2] as number },
    unreadableLines: unreadable, halfWritten: half === 1, outcome,
  };
  return { job, asOf };
}
