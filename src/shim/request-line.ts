/**
 * Reading back one line of requests.jsonl (written by request-log.ts): the
 * fields a report needs, checked, from a line that may be cut short by a crash
 * or edited by hand. Pure.
 */
import { checkShape, type Shape } from '../json-shape.js';

interface Line {
  readonly t: string;
  readonly path: string;
  readonly method?: string;
  readonly status: number;
  readonly ttfb_ms?: number | null;
  readonly total_ms: number;
  readonly usage?: {
    readonly input_tokens?: number | null;
    readonly output_tokens?: number | null;
    readonly cache_read_input_tokens?: number | null;
    readonly cache_creation_input_tokens?: number | null;
  } | null;
}

const nullableNumber: Shape = { anyOf: [{ type: 'number' }, { type: 'null' }] };
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
  },
  required: ['t', 'path', 'status', 'total_ms'],
  additionalProperties: true,
};

/** A generation request (POST /v1/messages) as requests.jsonl recorded it. */
export interface LoggedGeneration {
  readonly t: string;
  readonly status: number;
  readonly ttfbMs: number | undefined;
  readonly totalMs: number;
  /** Prompt tokens the server evaluated anew (usage.input_tokens). */
  readonly evaluated: number;
  /** Prompt tokens written to a cache, for backends that say so (usage.cache_creation_input_tokens). */
  readonly cacheWritten: number;
  /** Prompt tokens served from the KV cache (usage.cache_read_input_tokens). */
  readonly cached: number;
  readonly output: number;
  /** The backend sent a usage block (a failed request has none). */
  readonly hasUsage: boolean;
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
  return {
    kind: 'generation',
    request: {
      t: e.t,
      status: e.status,
      ttfbMs: e.ttfb_ms ?? undefined,
      totalMs: e.total_ms,
      evaluated: e.usage?.input_tokens ?? 0,
      cacheWritten: e.usage?.cache_creation_input_tokens ?? 0,
      cached: e.usage?.cache_read_input_tokens ?? 0,
      output: e.usage?.output_tokens ?? 0,
      hasUsage: e.usage !== undefined && e.usage !== null,
    },
  };
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
