import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { translateStreamErrorData } from '../../../src/shim/translate/stream-error.js';
import { createStreamErrorRewriter, type StreamErrorRewriterOptions } from '../../../src/shim/translate/stream-error-rewriter.js';

/** The whole SSE body through the rewriter in one push, as a short answer arrives. */
function transformStreamErrorEvents(bytes: Buffer, options: StreamErrorRewriterOptions): Buffer {
  const rewriter = createStreamErrorRewriter(options);
  return Buffer.concat([rewriter.push(bytes), rewriter.end()]);
}
import { llamaStream } from '../rewrite/fixtures.js';

// docs/backends.md §2.4, observed on a real llama-server: deltas already sent, then this event, then the stream ends.
const LLAMA_ERROR_DATA = '{"code":500,"message":"Failed to parse input at pos 22: <think>\\nkl","type":"server_error"}';
const LLAMA_ERROR_EVENT = `event: error\ndata: ${LLAMA_ERROR_DATA}\n\n`;
const ANTHROPIC_ERROR_DATA = '{"type":"error","error":{"type":"api_error","message":"Failed to parse input at pos 22: <think>\\nkl"}}';

/** The first `n` events of the captured llama.cpp stream, then the error event. */
function streamWithError(n: number): { input: Buffer; head: Buffer } {
  const events = llamaStream('ok-stream.http').toString('utf8').split('\n\n').slice(0, n).map((e) => `${e}\n\n`);
  const head = Buffer.from(events.join(''));
  return { input: Buffer.concat([head, Buffer.from(LLAMA_ERROR_EVENT)]), head };
}

function chunked(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const p of points) {
    chunks.push(bytes.subarray(from, p));
    from = p;
  }
  chunks.push(bytes.subarray(from));
  return chunks;
}

describe('translateStreamErrorData', () => {
  it('turns llama.cpp\'s {"code","message","type"} into Anthropic\'s envelope', () => {
    expect(translateStreamErrorData(LLAMA_ERROR_DATA, 'llama.cpp')).toEqual({
      data: ANTHROPIC_ERROR_DATA,
      changed: true,
      kind: 'mapped',
      body: { type: 'error', error: { type: 'api_error', message: 'Failed to parse input at pos 22: <think>\nkl' } },
    });
  });

  it('applies overflow detection inside a stream', () => {
    const data = '{"code":400,"message":"request (1324 tokens) exceeds the available context size (1024 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":1324,"n_ctx":1024}';
    expect(JSON.parse(translateStreamErrorData(data, 'llama.cpp').data)).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 1324 tokens > 1023 maximum' },
    });
  });

  it("gives vLLM's internal_error the Anthropic type and leaves a valid Anthropic error as the same string", () => {
    const vllm = '{"type":"error","error":{"type":"internal_error","message":"boom"}}';
    expect(translateStreamErrorData(vllm, 'vllm')).toMatchObject({ changed: true, body: { error: { type: 'api_error', message: 'boom' } } });
    const fine = '{"type":"error", "error":{"type":"overloaded_error","message":"Overloaded"}}';
    const result = translateStreamErrorData(fine, 'other');
    expect(result.changed).toBe(false);
    expect(result.data).toBe(fine);
  });

  it('wraps a non-JSON payload', () => {
    expect(translateStreamErrorData('upstream closed', 'vllm').body.error).toEqual({
      type: 'api_error',
      message: 'The model server sent a stream error that is not JSON: upstream closed',
    });
  });
});

describe('createStreamErrorRewriter', () => {
  it('rewrites only the error event of a llama.cpp stream; every other byte is unchanged', () => {
    const { input, head } = streamWithError(5);
    const out = transformStreamErrorEvents(input, { backend: 'llama.cpp' });
    expect(out.toString('utf8')).toBe(`${head.toString('utf8')}event: error\ndata: ${ANTHROPIC_ERROR_DATA}\n\n`);
  });

  it('returns the very same Buffer for chunks of an error-free stream that end on a line end', () => {
    const stream = llamaStream('ok-stream.http');
    const rewriter = createStreamErrorRewriter({ backend: 'llama.cpp' });
    expect(rewriter.push(stream)).toBe(stream);
    expect(rewriter.end().length).toBe(0);
  });

  it('is chunk-boundary safe: any split gives the same bytes as the whole stream', () => {
    const { input } = streamWithError(6);
    const whole = transformStreamErrorEvents(input, { backend: 'llama.cpp' });
    const byteByByte = createStreamErrorRewriter({ backend: 'llama.cpp' });
    const pieces = [...input].map((byte) => byteByByte.push(Buffer.from([byte])));
    expect(Buffer.concat([...pieces, byteByByte.end()]).equals(whole)).toBe(true);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 12 }), (cuts) => {
        const rewriter = createStreamErrorRewriter({ backend: 'llama.cpp' });
        const out = chunked(input, cuts).map((c) => rewriter.push(c));
        expect(Buffer.concat([...out, rewriter.end()]).equals(whole)).toBe(true);
      }),
    );
  });

  it('passes error-free streams through byte-identical under any split', () => {
    const stream = llamaStream('b9553/ok-stream-thinking.http');
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 12 }), (cuts) => {
        const rewriter = createStreamErrorRewriter({ backend: 'llama.cpp' });
        const out = chunked(stream, cuts).map((c) => rewriter.push(c));
        expect(Buffer.concat([...out, rewriter.end()]).equals(stream)).toBe(true);
      }),
    );
  });

  it('keeps CRLF line ends and delivers an error event the stream cut before its blank line', () => {
    const crlf = Buffer.from(`event: ping\r\ndata: {}\r\n\r\nevent: error\r\ndata: ${LLAMA_ERROR_DATA}`);
    expect(transformStreamErrorEvents(crlf, { backend: 'llama.cpp' }).toString()).toBe(
      `event: ping\r\ndata: {}\r\n\r\nevent: error\r\ndata: ${ANTHROPIC_ERROR_DATA}\r\n\r\n`,
    );
  });

  it('leaves an error event that is already Anthropic-shaped as it was', () => {
    const input = Buffer.from('event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n');
    expect(transformStreamErrorEvents(input, { backend: 'other' }).equals(input)).toBe(true);
  });
});
