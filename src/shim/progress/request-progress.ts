/**
 * What one open /v1/messages request is doing right now, read from its bytes
 * as they pass: phase, prompt size once the backend says, output tokens so far,
 * recent speed, time of the last byte, whether a tool call began, whether the
 * output repeats itself. Observes only; the forwarder sends the bytes unchanged.
 *
 * Phases, from what each backend sends (docs/backends.md §1, §4):
 * - llama.cpp sends no byte while the request waits for a slot, HTTP 200 and
 *   headers when prompt processing starts, `message_start` with the first
 *   generated token. So: no headers = waiting for a slot; headers = reading the
 *   prompt; message_start = generating.
 * - vLLM sends headers at once and waits for a running slot silently, so
 *   before the first token it cannot be told whether the request waits or
 *   reads: it is shown as reading the prompt (the server-wide
 *   `vllm:num_requests_waiting` gauge does not say which request waits).
 * - Neither backend reports prompt progress on /v1/messages: llama.cpp's
 *   `return_progress` chunks are not emitted in its Anthropic stream, and
 *   `timings` ride on deltas only when the request sets `timings_per_token`
 *   (Claude Code does not; when present they are used). llama.cpp's /slots
 *   does count a prompt as it is read: prompt-watch.ts hands that count in
 *   (promptRead) when it can tell which slot is ours.
 *
 * Output tokens while streaming are an estimate: each content delta (text,
 * thinking, tool-argument JSON) carries at least one token — both servers send
 * one per decoded token, though llama.cpp holds back text its output parser has
 * not placed yet — and one token is about four characters, so the estimate is
 * the larger of the delta count and characters / 4. The backend's own count
 * (message_delta usage, or llama.cpp `timings.predicted_n`) replaces it once sent.
 */
import type { BackendKind } from '../../config/schema.js';
import { isRecord } from '../json/json-shape.js';
import { createOutputMeter, createPromptReadMeter, type PromptRead } from './progress-meters.js';
import { createRepetitionDetector } from './repetition.js';
import { SseLineSplitter, fieldValue, startsWithAscii } from '../translate/sse-lines.js';

export const PHASES = ['waiting for a slot', 'reading the prompt', 'generating'] as const;
export type RequestPhase = (typeof PHASES)[number];

export interface RequestProgressSnapshot {
  /** 1-based number of this /v1/messages request within its route (job). */
  readonly request: number;
  readonly startedAt: number;
  readonly phase: RequestPhase;
  /** Request body size: the job side estimates the prompt from it before the backend says. */
  readonly requestBytes: number;
  /** Whole prompt (evaluated + cached), from message_start. */
  readonly promptTokens: number | undefined;
  readonly cachedTokens: number | undefined;
  /** While the prompt is read (llama.cpp /slots): tokens of it in the server's cache so far, the reused prefix included. */
  readonly promptRead: PromptRead | undefined;
  readonly outputTokens: number;
  /** True once the count is the backend's own rather than our estimate. */
  readonly outputExact: boolean;
  /** Output tokens per second over the last few seconds of generation. */
  readonly tokensPerS: number | undefined;
  /** When the last byte (of anything, SSE keep-alive comments included) came; undefined before the first. */
  readonly lastByteAt: number | undefined;
  readonly toolCall: boolean;
  /** The n-gram the recent output keeps repeating, if it does. */
  readonly repeated: string | undefined;
  readonly ended: boolean;
}

export interface RequestProgress {
  /** The backend answered with this status (headers arrived). */
  headers(status: number): void;
  /** Next bytes of a streamed answer (any chunking). */
  push(chunk: Buffer): void;
  /** Any other byte arrived (a JSON body's chunk). */
  touch(): void;
  /** The server has read this much of the prompt (cached prefix included). */
  promptRead(tokens: number, cached: number): void;
  end(): void;
  snapshot(now?: number): RequestProgressSnapshot;
}

export interface RequestProgressOptions {
  readonly request: number;
  readonly backend: BackendKind;
  readonly requestBytes: number;
  readonly now?: () => number;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);

/** The text of a content delta (text, thinking, tool-argument JSON); undefined for deltas without tokens (signatures). */
function deltaText(delta: Record<string, unknown>): string | undefined {
  for (const key of ['text', 'thinking', 'partial_json'] as const) {
    const value = delta[key];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

export function createRequestProgress(options: RequestProgressOptions): RequestProgress {
  const now = options.now ?? Date.now;
  const startedAt = now();
  const splitter = new SseLineSplitter();
  const repetition = createRepetitionDetector();
  const output = createOutputMeter();
  const promptRead = createPromptReadMeter();
  let phase: RequestPhase = options.backend === 'vllm' ? 'reading the prompt' : 'waiting for a slot';
  let promptTokens: number | undefined;
  let cachedTokens: number | undefined;
  let lastByteAt: number | undefined;
  let toolCall = false;
  let ended = false;

  const onEvent = (data: Record<string, unknown>, t: number): void => {
    const type = data.type;
    const predicted = isRecord(data.timings) ? num(data.timings.predicted_n) : undefined;
    if (predicted !== undefined) output.exact(predicted);
    if (type === 'message_start') {
      phase = 'generating';
      const usage = isRecord(data.message) ? data.message.usage : undefined;
      if (isRecord(usage)) {
        cachedTokens = num(usage.cache_read_input_tokens) ?? 0;
        promptTokens = (num(usage.input_tokens) ?? 0) + cachedTokens;
      }
      output.begin(t);
    } else if (type === 'content_block_start') {
      if (isRecord(data.content_block) && data.content_block.type === 'tool_use') toolCall = true;
    } else if (type === 'content_block_delta' && isRecord(data.delta)) {
      const text = deltaText(data.delta);
      if (text === undefined) return;
      repetition.push(text);
      output.delta(text, t);
    } else if (type === 'message_delta' && isRecord(data.usage)) {
      const counted = num(data.usage.output_tokens);
      if (counted !== undefined) output.exact(counted);
      output.sample(t);
    }
  };

  const onLine = (buf: Buffer, start: number, end: number): void => {
    if (!startsWithAscii(buf, start, end, 'data:')) return;
    let data: unknown;
    try {
      data = JSON.parse(fieldValue(buf, start, end, 'data'));
    } catch {
      return; // a cut or garbled event: nothing to count
    }
    if (isRecord(data)) onEvent(data, now());
  };

  return {
    headers() {
      lastByteAt = now();
      if (phase === 'waiting for a slot') phase = 'reading the prompt';
    },
    push(chunk) {
      lastByteAt = now();
      splitter.push(chunk, onLine);
    },
    touch() {
      lastByteAt = now();
    },
    promptRead(tokens, cached) {
      if (phase === 'generating') return; // a late answer: message_start has the final numbers
      promptRead.read(tokens, cached, now());
    },
    end() {
      ended = true;
    },
    snapshot(at = now()) {
      return {
        request: options.request,
        startedAt,
        phase,
        requestBytes: options.requestBytes,
        promptTokens,
        cachedTokens,
        promptRead: phase === 'generating' ? undefined : promptRead.latest(),
        outputTokens: output.tokens(),
        outputExact: output.isExact(),
        tokensPerS: phase === 'generating' ? output.rate(at) : undefined,
        lastByteAt,
        toolCall,
        repeated: repetition.repeated,
        ended,
      };
    },
  };
}
