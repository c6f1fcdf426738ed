/**
 * Reading back one line of requests.jsonl (written by request-log.ts): the one
 * reader every report uses (the live CLI display, the dashboard's chart, usage),
 * so the line's shape is described once beside its writer. A line may be cut
 * short by a crash or edited by hand; nothing in it is trusted. Pure.
 */
import { checkShape, type Shape } from '../../json-shape.js';

interface Line {
  readonly t: string;
  readonly path: string;
  readonly method?: string;
  readonly status: number;
  readonly ttfb_ms?: number | null;
  readonly total_ms: number;
  readonly messages?: number | null;
  readonly usage?: {
    readonly input_tokens?: number | null;
    readonly output_tokens?: number | null;
    readonly cache_read_input_tokens?: number | null;
    readonly cache_creation_input_tokens?: number | null;
  } | null;
  readonly error?: string | null;
  readonly original_error?: string | null;
  readonly error_source?: string | null;
}

const nullableNumber: Shape = { anyOf: [{ type: 'number' }, { type: 'null' }] };
const nullableString: Shape = { anyOf: [{ type: 'string' }, { type: 'null' }] };
// Loose: the shim adds fields over time, and an older file lacks some. Checked without zod (src/json-shape.ts):
// `localagents usage` reads every line of a year of jobs.
const lineShape: Shape = {
  type: 'object',
  properties: {
    t: { type: 'string' },
    path: { type: 'string' },
    method: { type: 'string' },
    status: { type: 'number' },
    ttfb_ms: nullableNumber,
    total_ms: { type: 'number' },
    messages: nullableNumber,
    usage: {
      anyOf: [
        {
          type: 'object',
          properties: { input_tokens: nullableNumber, output_tokens: nullableNumber, cache_read_input_tokens: nullableNumber, cache_creation_input_tokens: nullableNumber },
          additionalProperties: true,
        },
        { type: 'null' },
      ],
    },
    error: nullableString,
    original_error: nullableString,
    error_source: nullableString,
  },
  required: ['t', 'path', 'status', 'total_ms'],
  additionalProperties: true,
};

/** How much of a failed request's error a report shows. */
const ERROR_CHARS = 300;

/** A generation request (POST /v1/messages) as requests.jsonl recorded it. */
export interface LoggedGeneration {
  readonly t: string;
  readonly status: number;
  readonly ttfbMs: number | undefined;
  readonly totalMs: number;
  /** Messages in the request the shim forwarded. */
  readonly messages: number | undefined;
  /** Prompt tokens the server evaluated anew (usage.input_tokens). */
  readonly evaluated: number;
  /** Prompt tokens written to a cache, for backends that say so (usage.cache_creation_input_tokens). */
  readonly cacheWritten: number;
  /** Prompt tokens served from the KV cache (usage.cache_read_input_tokens). */
  readonly cached: number;
  readonly output: number;
  /** The backend sent a usage block (a failed request has none). */
  readonly hasUsage: boolean;
  /** Why it failed (first 300 characters): an error status, an error inside a 200 stream, a cut stream; undefined when it did not. */
  readonly error: string | undefined;
}

/** generation: a /v1/messages request; other: a line of another request (count_tokens); unreadable: not a request line. */
export type RequestLine = { kind: 'generation'; request: LoggedGeneration } | { kind: 'other' } | { kind: 'unreadable' };

export function readRequestLine(line: string): RequestLine {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return { kind: 'unreadable' };
  }
  const parsed = checkShape<Line>(json, lineShape);
  if (!parsed.ok) return { kind: 'unreadable' };
  const e = parsed.value;
  if (e.path !== '/v1/messages' || (e.method !== undefined && e.method !== 'POST')) return { kind: 'other' };
  // An error inside a 200 stream, or a cut stream, is an error too (error_source says so).
  const failed = e.status >= 400 || (e.error_source !== undefined && e.error_source !== null);
  return {
    kind: 'generation',
    request: {
      t: e.t,
      status: e.status,
      ttfbMs: e.ttfb_ms ?? undefined,
      totalMs: e.total_ms,
      messages: e.messages ?? undefined,
      evaluated: e.usage?.input_tokens ?? 0,
      cacheWritten: e.usage?.cache_creation_input_tokens ?? 0,
      cached: e.usage?.cache_read_input_tokens ?? 0,
      output: e.usage?.output_tokens ?? 0,
      hasUsage: e.usage !== undefined && e.usage !== null,
      error: failed ? (e.error ?? e.original_error ?? `HTTP ${e.status}`).slice(0, ERROR_CHARS) : undefined,
    },
  };
}

/** The generation requests among some lines, with the count of lines that were not request lines. */
export function readGenerations(lines: Iterable<string>): { requests: LoggedGeneration[]; unreadable: number } {
  const requests: LoggedGeneration[] = [];
  let unreadable = 0;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const read = readRequestLine(line);
    if (read.kind === 'unreadable') unreadable++;
    else if (read.kind === 'generation') requests.push(read.request);
  }
  return { requests, unreadable };
}

/**
 * Evaluated prompt tokens per second of time to first byte (the first byte of a
 * llama.cpp or vLLM stream comes with the first generated token: prefill, plus any queueing).
 */
export function promptTokensPerS(r: LoggedGeneration): number | undefined {
  return r.ttfbMs !== undefined && r.ttfbMs > 0 && r.evaluated > 0 ? r.evaluated / (r.ttfbMs / 1000) : undefined;
}

/** Generated tokens per second after the first byte: decode speed. */
export function generationTokensPerS(r: LoggedGeneration): number | undefined {
  if (r.ttfbMs === undefined) return undefined;
  const decodeMs = r.totalMs - r.ttfbMs;
  return decodeMs > 0 && r.output > 1 ? r.output / (decodeMs / 1000) : undefined;
}

/** cached / (cached + evaluated): the share of the prompt the server did not recompute. */
export function cacheReuse(r: LoggedGeneration): number | undefined {
  return r.evaluated + r.cached > 0 ? r.cached / (r.evaluated + r.cached) : undefined;
}
