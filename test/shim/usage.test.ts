import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSseUsageTracker, usageFromJson, type UsageResult } from '../../src/shim/body/usage.js';
import { llamaHttp, llamaStream } from './rewrite/fixtures.js';

function track(chunks: readonly Buffer[]): UsageResult {
  const tracker = createSseUsageTracker({ backend: 'llama.cpp' });
  for (const chunk of chunks) tracker.push(chunk);
  return tracker.result();
}

function split(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  const out = points.map((p) => {
    const chunk = bytes.subarray(from, p);
    from = p;
    return chunk;
  });
  return [...out, bytes.subarray(from)];
}

describe('createSseUsageTracker on captured llama-server streams', () => {
  it('reads usage from message_start and message_delta (August build)', () => {
    expect(track([llamaStream('ok-stream.http')])).toEqual({
      input_tokens: 33,
      cache_read_input_tokens: 0,
      output_tokens: 8,
      stop_reason: 'max_tokens',
      events: 14,
    });
  });

  it('reads the prompt-cache hit of a repeated request (b9553: 65 cached, 1 evaluated)', () => {
    expect(track([llamaStream('b9553/ok-stream-thinking.http')])).toEqual({
      input_tokens: 1,
      cache_read_input_tokens: 65,
      output_tokens: 4,
      stop_reason: 'max_tokens',
      events: 10,
    });
  });

  it('gives the same result however the stream is cut into chunks', () => {
    const stream = llamaStream('ok-stream.http');
    const whole = track([stream]);
    expect(track([...stream].map((b) => Buffer.from([b])))).toEqual(whole);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 16 }), (cuts) => {
        expect(track(split(stream, cuts))).toEqual(whole);
      }),
    );
  });

  it('reports a llama.cpp stream error in Anthropic terms, keeping the usage seen before it', () => {
    const head = llamaStream('ok-stream.http').toString().split('\n\n').slice(0, 4).join('\n\n');
    const stream = `${head}\n\nevent: error\ndata: {"code":500,"message":"Failed to parse input at pos 22: <think>","type":"server_error"}\n\n`;
    expect(track([Buffer.from(stream)])).toEqual({
      input_tokens: 33,
      cache_read_input_tokens: 0,
      output_tokens: 0,
      // The backend's own event data is kept too, for the job record's explanation.
      error: { type: 'api_error', message: 'Failed to parse input at pos 22: <think>', original: '{"code":500,"message":"Failed to parse input at pos 22: <think>","type":"server_error"}' },
      events: 5,
    });
  });

  it('takes vLLM-style final usage from message_delta, with CRLF line ends and a last event missing its blank line', () => {
    const stream = [
      'event: message_start',
      'data: {"type":"message_start","message":{"id":"chatcmpl-1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":1200,"output_tokens":0}}}',
      '',
      ': keep-alive',
      '',
      'event: content_block_delta',
      'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}',
      '',
      'event: message_delta',
      'data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":200,"output_tokens":17,"cache_read_input_tokens":1000,"cache_creation_input_tokens":0}}',
      '',
    ].join('\r\n');
    expect(track([Buffer.from(stream)])).toEqual({
      input_tokens: 200,
      output_tokens: 17,
      cache_read_input_tokens: 1000,
      cache_creation_input_tokens: 0,
      stop_reason: 'end_turn',
      events: 3,
    });
  });

  it('ignores garbage without throwing', () => {
    expect(track([Buffer.from('event: message_start\ndata: {not json\n\n\n\ndata: [DONE]\n\n')])).toEqual({ events: 2 });
  });

  // What it costs per event is measured by npm run bench:shim, not asserted here: a loaded machine would fail it.
  it('counts every event of a 2,000-event stream, chunked as a server writes it', () => {
    const text = llamaStream('ok-stream.http').toString();
    const [start, , delta] = text.split('\n\n');
    const tail = text.split('\n\n').slice(-4).join('\n\n');
    const body = `${start}\n\n${`${delta}\n\n`.repeat(1996)}${tail}`;
    // Realistic chunking: the server writes an event or two at a time.
    const chunks = body.split(/(?<=\n\n)/).map((e) => Buffer.from(e));
    expect(track(chunks).events).toBe(2000);
    expect(track([Buffer.from(body)]).events).toBe(2000);
  });
});

describe('usageFromJson', () => {
  it('reads a non-streamed llama-server response (ok-nonstream.http), as text or parsed', () => {
    const { body } = llamaHttp('ok-nonstream.http');
    const expected = { input_tokens: 33, output_tokens: 6, cache_read_input_tokens: 0, stop_reason: 'max_tokens', events: 0 };
    expect(usageFromJson(body)).toEqual(expected);
    expect(usageFromJson(Buffer.from(body))).toEqual(expected);
    expect(usageFromJson(JSON.parse(body))).toEqual(expected);
  });

  it('reads the error of an error body, Anthropic or llama.cpp shaped', () => {
    expect(usageFromJson({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })).toEqual({
      error: { type: 'overloaded_error', message: 'Overloaded' },
      events: 0,
    });
    expect(usageFromJson(llamaHttp('err-404.http').body)).toEqual({ error: { type: 'not_found_error', message: 'File Not Found' }, events: 0 });
  });

  it.each([null, 'not json', 42, [], { usage: 'x' }])('returns no usage for %j', (body) => {
    expect(usageFromJson(body)).toEqual({ events: 0 });
  });
});
