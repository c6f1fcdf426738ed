/**
 * Reading back one line of requests.jsonl (written by request-log.ts): the one
 * reader every report uses (the live CLI display, the dashboard's chart, usage),
 * so the line's shape is described once beside its writer. A line may be cut
 * short by a crash or edited by hand; nothing in it is trusted. Pure.
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
  messages: z.number().nullish(),
  usage: z
    .looseObject({
      input_tokens: z.number().nullish(),
      output_tokens: z.number().nullish(),
      cache_read_input_tokens: z.number().nullish(),
      cache_creation_input_tokens: z.number().nullish(),
    })
    .nullish(),
  error: z.string().nullish(),
  original_error: z.string().nullish(),
  error_source: z.string().nullish(),
});

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
  const parsed = lineSchema.safeParse(json);
  if (!parsed.success) return { kind: 'unreadable' };
  const e = parsed.data;
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
