/**
 * The live view of a job's open requests at the thresholds users get (README, "Watching a slow model"): a
 * request silent for 60 s, or far past the job's usual turn without a tool call, is flagged, once. Driven by
 * the shim's own request progress fed the bytes a llama.cpp stream carries, on a clock the test moves.
 */
import { describe, expect, it } from 'vitest';
import { createLiveRequests, DEFAULT_LIVE_THRESHOLDS } from '../../src/jobs/tracking/live-requests.js';
import type { RequestLogEntry } from '../../src/shim/request-log/request-log.js';
import { createRequestProgress, type RequestProgress } from '../../src/shim/progress/request-progress.js';

function clock(): { now: () => number; advance(s: number): void } {
  let t = 1_000_000;
  return { now: () => t, advance: (s) => void (t += s * 1000) };
}

const sse = (data: unknown): Buffer => Buffer.from(`data: ${JSON.stringify(data)}\n\n`);
const messageStart = (input: number, cached = 0): Buffer => sse({ type: 'message_start', message: { usage: { input_tokens: input, cache_read_input_tokens: cached } } });
const textDelta = (text: string): Buffer => sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });

/** A finished request as the shim logs it: what the live view learns the job's usual turn from. */
function logged(request: number, usage: { input: number; cached: number; output: number }, ttfbMs: number, bytes: number): RequestLogEntry {
  return {
    t: new Date().toISOString(), request, path: '/v1/messages', method: 'POST', model: 'coder', messages: 3, tools: 10, stream: true,
    request_bytes: bytes, status: 200, ttfb_ms: ttfbMs, total_ms: ttfbMs + 500,
    usage: { input_tokens: usage.input, cache_read_input_tokens: usage.cached, output_tokens: usage.output },
    folded_system_messages: 0, rewrites: [],
  };
}

function open(c: ReturnType<typeof clock>, request: number, bytes = 40_000): RequestProgress {
  return createRequestProgress({ request, backend: 'llama.cpp', requestBytes: bytes, now: c.now });
}

describe('live view of open requests at the default thresholds', () => {
  it('has the thresholds the README promises', () => {
    expect(DEFAULT_LIVE_THRESHOLDS).toMatchObject({ silenceS: 60, runawayFactor: 4, runawayMinTokens: 4000 });
  });

  it('flags a request silent past 60 s once, with the prompt size and speed learned from the job\'s earlier request', () => {
    const c = clock();
    const live = createLiveRequests(DEFAULT_LIVE_THRESHOLDS, c.now);
    // The first request: 8,000 prompt tokens evaluated in 10 s, from a 32,000-byte body.
    live.finished(logged(1, { input: 8000, cached: 0, output: 40 }, 10_000, 32_000));
    const second = open(c, 2, 60_000);
    live.open(second);
    second.headers(200); // llama.cpp has begun reading the prompt
    c.advance(60);
    expect(live.view().raised).toEqual([]);
    expect(live.view().inFlight[0]).toMatchObject({ request: 2, phase: 'reading the prompt', prompt_tokens_estimate: 15_000, silent_s: 60, flags: [] });
    c.advance(1);
    const { inFlight, raised } = live.view();
    expect(raised).toEqual([{ request: 2, flag: { kind: 'silent', message: 'no byte from the server for 61 s: reading a ~15k-token prompt at ~800 tokens/s: about 19 s if none of it is cached' } }]);
    expect(inFlight[0]?.flags.map((f) => f.kind)).toEqual(['silent']);
    c.advance(5);
    expect(live.view().raised).toEqual([]); // raised once; still listed on the request
    expect(live.view().inFlight[0]?.flags.map((f) => f.kind)).toEqual(['silent']);
  });

  it('words a silence while llama.cpp counts the prompt in its /slots: how far it has read, and how fast', () => {
    const c = clock();
    const live = createLiveRequests(DEFAULT_LIVE_THRESHOLDS, c.now);
    const request = open(c, 1);
    live.open(request);
    request.headers(200);
    request.promptRead(2048, 0);
    c.advance(30);
    request.promptRead(26_624, 0);
    c.advance(31);
    const [flag] = live.view().raised;
    expect(flag?.flag.message).toBe('no byte from the server for 61 s: reading the prompt, 27k prompt tokens read (0 cached) at ~819 tokens/s');
  });

  it('says a request waiting for a slot is waiting, not stuck', () => {
    const c = clock();
    const live = createLiveRequests(DEFAULT_LIVE_THRESHOLDS, c.now);
    live.open(open(c, 1));
    c.advance(61);
    expect(live.view().raised[0]?.flag.message).toBe('no byte from the server for 61 s: waiting for a free slot (the server is busy with other requests and sends nothing while a request waits)');
  });

  it('flags output past 4,000 tokens and 4× the longest earlier turn with no tool call as a possible runaway, and not before', () => {
    const c = clock();
    const live = createLiveRequests(DEFAULT_LIVE_THRESHOLDS, c.now);
    live.finished(logged(1, { input: 9000, cached: 0, output: 1200 }, 4000, 36_000));
    const request = open(c, 2);
    live.open(request);
    request.headers(200);
    request.push(messageStart(200, 9000));
    const stream = (n: number): void => {
      for (let i = 0; i < n; i++) request.push(textDelta(`${i.toString(36).padStart(3, "0")} `)); // one token each: four characters, never repeating
    };
    stream(4800); // 4× 1,200: at the limit, not past it
    expect(live.view().raised).toEqual([]);
    stream(1);
    expect(live.view().raised).toEqual([
      { request: 2, flag: { kind: 'runaway', message: 'possible runaway: 4,801 output tokens with no tool call, over 4× the longest earlier turn of this job (1,200); cancelling the job stops it if it is not useful' } },
    ]);
  });

  it('drops a request from the view once its log entry arrives', () => {
    const c = clock();
    const live = createLiveRequests(DEFAULT_LIVE_THRESHOLDS, c.now);
    live.open(open(c, 1));
    expect(live.openCount).toBe(1);
    live.finished(logged(1, { input: 300, cached: 0, output: 10 }, 500, 2000));
    expect(live.openCount).toBe(0);
    expect(live.view().inFlight).toEqual([]);
  });
});
