/**
 * The per-request chart data of one job, read from its requests.jsonl: how long
 * each backend request took (first byte, total) and how its prompt split into
 * tokens served from the KV cache and tokens evaluated anew, plus tokens
 * generated. Only generation requests (POST /v1/messages) are points; the
 * shim's count_tokens calls are not.
 */
import { inFlightSummary } from '../jobs/view/in-flight-line.js';
import type { InFlightRequest, JobRecord } from '../jobs/record/job-record.js';
import { openRegularFile } from '../coord/regular-file.js';
import { readGenerations } from '../shim/request-log/request-line.js';

export interface RequestPoint {
  /** 1-based number of the generation request within the job. */
  readonly n: number;
  readonly t: string;
  readonly status: number;
  readonly ttfb_ms: number | null;
  readonly total_ms: number;
  /** Prompt tokens the backend reused from its cache (usage.cache_read_input_tokens). */
  readonly cached: number | null;
  /** Prompt tokens evaluated for this request (usage.input_tokens). */
  readonly fresh: number | null;
  readonly output: number | null;
  readonly messages: number | null;
  readonly error: string | null;
  /** Still open: its bar grows while the job runs (output so far; total_ms = open for). */
  readonly open?: boolean;
  /** Open and reading its prompt: tokens the server has read so far, the cached part included (cached = that part). */
  readonly prompt_read?: number;
  /** Open: what it is doing, in the words job_status and the CLI use. */
  readonly line?: string;
}

export interface RequestSeries {
  readonly points: readonly RequestPoint[];
  /** Lines that were not a request entry (a line cut by a crash, hand edits). */
  readonly unreadable: number;
  /** The file was larger than we read; the points are its most recent requests. */
  readonly truncated: boolean;
}

/** Far beyond any real job (~500 bytes a request); protects the server from a runaway file. */
const MAX_BYTES = 32 * 1024 * 1024;

async function readTail(path: string): Promise<{ text: string; truncated: boolean }> {
  let handle;
  try {
    handle = await openRegularFile(path);
  } catch (err) {
    // No file yet: the job has not sent a request.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { text: '', truncated: false };
    throw err;
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - MAX_BYTES);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const text = buffer.toString('utf8');
    // Starting mid-file, the first line is a fragment.
    return start === 0 ? { text, truncated: false } : { text: text.slice(text.indexOf('\n') + 1), truncated: true };
  } finally {
    await handle.close();
  }
}

export function parseRequestLines(text: string): { points: RequestPoint[]; unreadable: number } {
  const { requests, unreadable } = readGenerations(text.split('\n'));
  const points = requests.map((r, i): RequestPoint => ({
    n: i + 1,
    t: r.t,
    status: r.status,
    ttfb_ms: r.ttfbMs ?? null,
    total_ms: r.totalMs,
    // A failed request has no usage: no token counts, rather than zeros.
    cached: r.hasUsage ? r.cached : null,
    fresh: r.hasUsage ? r.evaluated : null,
    output: r.hasUsage ? r.output : null,
    messages: r.messages ?? null,
    error: r.error ?? null,
  }));
  return { points, unreadable };
}

export async function readRequestSeries(path: string): Promise<RequestSeries> {
  const { text, truncated } = await readTail(path);
  return { ...parseRequestLines(text), truncated };
}

/** The series with the job's open requests after the finished ones, as points marked open. */
export function withOpenRequests(points: readonly RequestPoint[], inFlight: readonly InFlightRequest[], now: Date = new Date()): RequestPoint[] {
  const open = [...inFlight]
    .sort((a, b) => a.request - b.request)
    .map((r, i): RequestPoint => ({
      n: points.length + i + 1,
      t: r.started_at,
      status: 0,
      ttfb_ms: null,
      total_ms: Math.max(0, now.getTime() - Date.parse(r.started_at)),
      cached: r.cached_tokens ?? r.prompt_read_cached ?? null,
      fresh: r.prompt_tokens === undefined ? null : r.prompt_tokens - (r.cached_tokens ?? 0),
      output: r.output_tokens,
      messages: null,
      error: null,
      open: true,
      ...(r.prompt_read_tokens === undefined ? {} : { prompt_read: r.prompt_read_tokens }),
      line: inFlightSummary(r, now),
    }));
  return [...points, ...open];
}

/** A job's chart: its finished requests, its open ones after them, and its window (the chart's ceiling). */
export async function jobRequestSeries(record: JobRecord, requestsPath: string): Promise<RequestSeries & { readonly context: number | null }> {
  const series = await readRequestSeries(requestsPath);
  return { ...series, points: withOpenRequests(series.points, record.in_flight ?? []), context: record.model.context ?? null };
}
