/**
 * Reading back one line of requests.jsonl (written by request-log.ts): the
 * fields a report needs, checked, from a line that may be cut short by a crash
 * or edited by hand. Pure.
 */
import { z } from 'zod';

// Loose: the shim adds fields over time, and an older file lacks some.
const lineSchema = z.looseObject({
  t: z.string(),
  path: z.string(),
  method: z.string().optional(),
  status: z.number(),
  ttfb_ms: z.number().nullish(),
  total_ms: z.number(),
  usage: z
    .looseObject({
      input_tokens: z.number().nullish(),
      output_tokens: z.number().nullish(),
      cache_read_input_tokens: z.number().nullish(),
      cache_creation_input_tokens: z.number().nullish(),
    })
    .nullish(),
});

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
  const parsed = lineSchema.safeParse(json);
  if (!parsed.success) return { kind: 'unreadable' };
  const e = parsed.data;
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
