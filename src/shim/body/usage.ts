/**
 * Reads token usage, stop reason and errors from an Anthropic Messages
 * response — streamed (SSE bytes, observed as they pass) or not — for
 * requests.jsonl. Observes only: the server forwards the bytes untouched.
 *
 * Cost matters because every streamed chunk passes through here: lines are
 * found with Buffer.indexOf, and only `message_start`, `message_delta` and
 * `error` events are decoded and JSON-parsed; content deltas (nearly all of a
 * stream) are skipped without decoding.
 */
import type { BackendKind } from '../../config/schema.js';
import { isRecord, type JsonRecord } from '../json/json-shape.js';
import { SseLineSplitter, fieldValue, startsWithAscii } from '../translate/sse-lines.js';
import { translateStreamErrorData } from '../translate/stream-error.js';

export interface UsageResult {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  stop_reason?: string;
  /** The stream's (or body's) error, in Anthropic terms; `original`: the backend's own event data (first 300 characters). */
  error?: { type: string; message: string; original?: string };
  /** SSE events seen (0 for a JSON body). */
  events: number;
}

export interface SseUsageTracker {
  /** Observe the next bytes of the stream; chunks may split lines and events anywhere. */
  push(chunk: Buffer): void;
  /** What has been seen so far; a final event missing its blank line is counted too. */
  result(): UsageResult;
}

const USAGE_FIELDS = ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'] as const;
const WATCHED = new Set(['message_start', 'message_delta', 'error']);
/** Stands for every event name we do not watch. */
const UNWATCHED = '\u0000unwatched';

/** Whether the SSE line `buf[start, end)` is `field:value` or `field: value` exactly. */
function fieldEquals(buf: Buffer, start: number, end: number, field: string, value: string): boolean {
  let from = start + field.length + 1;
  if (buf[from] === 0x20) from += 1;
  return end - from === value.length && startsWithAscii(buf, from, end, value);
}

function applyUsage(into: UsageResult, usage: unknown): void {
  if (!isRecord(usage)) return;
  for (const field of USAGE_FIELDS) {
    const value = usage[field];
    if (typeof value === 'number' && Number.isFinite(value)) into[field] = value;
  }
}

function parseRecord(text: string): JsonRecord | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    // A truncated or garbled event (a cut stream): it carries no usage we could trust.
    return undefined;
  }
}

/** Folds one watched event into `into`. */
function applyEvent(into: UsageResult, name: string, data: string, backend: BackendKind): void {
  if (name === 'error') {
    const { error } = translateStreamErrorData(data, backend).body;
    into.error = { type: error.type, message: error.message, original: data.slice(0, 300) };
    return;
  }
  const event = parseRecord(data);
  if (event === undefined) return;
  if (name === 'message_start') {
    if (isRecord(event.message)) applyUsage(into, event.message.usage);
    return;
  }
  applyUsage(into, event.usage);
  if (isRecord(event.delta) && typeof event.delta.stop_reason === 'string') into.stop_reason = event.delta.stop_reason;
}

/** The event type of a data-only event (no `event:` line): the JSON's leading "type". */
function typeFromData(data: string): string | undefined {
  const match = /^\s*\{\s*"type"\s*:\s*"([a-z_]+)"/.exec(data);
  return match?.[1];
}

export interface SseUsageTrackerOptions {
  /** Only changes wording of translated error messages. */
  readonly backend?: BackendKind;
}

export function createSseUsageTracker(options: SseUsageTrackerOptions = {}): SseUsageTracker {
  const backend = options.backend ?? 'other';
  const splitter = new SseLineSplitter();
  const state: UsageResult = { events: 0 };
  // The event being read: its name, whether it has data, and the data lines (kept only when watched).
  let name: string | undefined;
  let hasData = false;
  let data: string[] = [];

  const dispatch = (into: UsageResult): void => {
    if (!hasData && name === undefined) return;
    into.events += 1;
    const joined = data.join('\n');
    const type = name ?? typeFromData(joined);
    if (type !== undefined && WATCHED.has(type) && hasData) applyEvent(into, type, joined, backend);
  };

  /** The event name when it is one we watch; UNWATCHED otherwise, without decoding it (content deltas are ~all of a stream). */
  const eventName = (buf: Buffer, start: number, end: number): string => {
    for (const watched of WATCHED) {
      if (fieldEquals(buf, start, end, 'event', watched)) return watched;
    }
    return UNWATCHED;
  };

  const onLine = (buf: Buffer, start: number, end: number): void => {
    if (start === end) {
      dispatch(state);
      name = undefined;
      hasData = false;
      data = [];
      return;
    }
    if (startsWithAscii(buf, start, end, 'data:')) {
      hasData = true;
      // Data of a named, unwatched event (content deltas) is never decoded.
      if (name === undefined || WATCHED.has(name)) data.push(fieldValue(buf, start, end, 'data'));
    } else if (startsWithAscii(buf, start, end, 'event:')) {
      name = eventName(buf, start, end);
    }
    // Comments (":" keep-alives), id: and retry: lines carry nothing we report.
  };

  return {
    push(chunk: Buffer): void {
      splitter.push(chunk, onLine);
    },
    result(): UsageResult {
      const snapshot: UsageResult = { ...state, ...(state.error ? { error: { ...state.error } } : {}) };
      dispatch(snapshot);
      return snapshot;
    },
  };
}

/** Usage, stop reason or error of a non-streamed response body (parsed JSON, or its text). */
export function usageFromJson(body: unknown): UsageResult {
  const value = typeof body === 'string' || Buffer.isBuffer(body) ? parseRecord(body.toString()) : body;
  const result: UsageResult = { events: 0 };
  if (!isRecord(value)) return result;
  if (value.type === 'error' || isRecord(value.error)) {
    const error = value.error;
    if (isRecord(error)) {
      result.error = {
        type: typeof error.type === 'string' ? error.type : 'api_error',
        message: typeof error.message === 'string' ? error.message : '',
      };
    }
    return result;
  }
  applyUsage(result, value.usage);
  if (typeof value.stop_reason === 'string') result.stop_reason = value.stop_reason;
  return result;
}
