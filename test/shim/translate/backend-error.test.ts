import { describe, expect, it } from 'vitest';
import {
  translateBackendError,
  unreachableBackendError,
  type BackendErrorInput,
} from '../../../src/shim/translate/backend-error.js';
import { llamaHttp } from '../rewrite/fixtures.js';

function fromFixture(name: string, extra: Partial<BackendErrorInput> = {}): ReturnType<typeof translateBackendError> {
  const { status, body } = llamaHttp(name);
  return translateBackendError({ status, body, backend: 'llama.cpp', ...extra });
}

const vllm = (status: number, body: unknown): ReturnType<typeof translateBackendError> =>
  translateBackendError({ status, body: typeof body === 'string' ? body : JSON.stringify(body), backend: 'vllm', endpoint: 'dgx1' });

describe('translateBackendError: context overflow → 400 "prompt is too long: N tokens > M maximum"', () => {
  it.each([
    ['err-context.http', 'prompt is too long: 6032 tokens > 4095 maximum'],
    ['b9553/err-context-stream.http', 'prompt is too long: 1324 tokens > 1023 maximum'],
  ])('llama.cpp %s (exceed_context_size_error with n_prompt_tokens/n_ctx)', (file, message) => {
    const result = fromFixture(file);
    expect(result).toMatchObject({
      status: 400,
      kind: 'context_overflow',
      body: { type: 'error', error: { type: 'invalid_request_error', message } },
    });
    expect(result.original).toBe(llamaHttp(file).body.slice(0, 300));
  });

  it('llama.cpp body with only the message (a relay that dropped n_prompt_tokens/n_ctx)', () => {
    const { body } = llamaHttp('err-context.http');
    const relayed = body.replace(/,"type":"exceed_context_size_error","n_prompt_tokens":6032,"n_ctx":4096/, '');
    expect(relayed).toBe('{"error":{"code":400,"message":"request (6032 tokens) exceeds the available context size (4096 tokens), try increasing it"}}');
    const result = translateBackendError({ status: 400, body: relayed, backend: 'other' });
    expect(result.body.error.message).toBe('prompt is too long: 6032 tokens > 4095 maximum');
  });

  it('older llama.cpp wording without numbers (HTTP 500) still makes Claude Code compact', () => {
    const body = { error: { code: 500, message: 'the request exceeds the available context size. try increasing the context size or enable context shift', type: 'exceed_context_size_error' } };
    const result = translateBackendError({ status: 500, body: JSON.stringify(body), backend: 'llama.cpp' });
    expect(result.status).toBe(400);
    expect(result.body.error.message).toMatch(/^prompt is too long: /);
    expect(result.body.error.message).not.toMatch(/\d/);
  });

  it('vLLM /v1/messages HTTP 500 internal_error, token variant: M = max_model_len − requested output', () => {
    const result = vllm(500, {
      type: 'error',
      error: {
        type: 'internal_error',
        message:
          "This model's maximum context length is 32768 tokens. However, you requested 32000 output tokens and your prompt contains at least 769 input tokens, for a total of at least 32769 tokens. Please reduce the length of the input prompt or the number of requested output tokens.",
      },
    });
    expect(result).toMatchObject({ status: 400, kind: 'context_overflow' });
    expect(result.body.error).toEqual({ type: 'invalid_request_error', message: 'prompt is too long: 769 tokens > 768 maximum' });
  });

  it('vLLM character pre-check variant: M = the token bound it names, N from the character count', () => {
    const result = vllm(500, {
      type: 'error',
      error: {
        type: 'internal_error',
        message:
          "This model's maximum context length is 32768 tokens. However, you requested 1000 output tokens and your prompt contains 200000 characters (more than 127072 characters, which is the upper bound for 31768 input tokens). Please reduce the length of the input prompt or the number of requested output tokens.",
      },
    });
    expect(result.body.error.message).toBe('prompt is too long: 50000 tokens > 31768 maximum');
  });

  it('OpenAI-shaped 400 BadRequestError variant', () => {
    const result = vllm(400, {
      error: {
        message:
          "This model's maximum context length is 32768 tokens. However, you requested 8192 output tokens and your prompt contains 30000 input tokens, for a total of 38192 tokens. Please reduce the length of the input prompt or the number of requested output tokens.",
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
    });
    expect(result.body.error.message).toBe('prompt is too long: 30000 tokens > 24576 maximum');
  });

  it('passes an Anthropic prompt-too-long error through unchanged', () => {
    const body = { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 40000 tokens > 32768 maximum' }, request_id: 'req_1' };
    const result = vllm(400, body);
    expect(result.kind).toBe('passthrough');
    expect(result.body).toEqual(body);
  });
});

describe('translateBackendError: chat template errors → 400, x-should-retry: false', () => {
  it.each([
    ['err-system-mid.http', 500],
    ['b9553/err-system-mid.http', 400],
  ])('llama.cpp %s (HTTP %i) names the reason in plain words', (file, status) => {
    const result = fromFixture(file);
    expect(result).toMatchObject({ status: 400, kind: 'template', headers: { 'x-should-retry': 'false' } });
    expect(result.body.error.type).toBe('invalid_request_error');
    expect(result.body.error.message).toMatch(
      new RegExp(`^The model server's chat template rejected the request: System message must be at the beginning\\. \\(llama\\.cpp Jinja template error, HTTP ${status}\\.`),
    );
    expect(result.body.error.message).not.toContain('CallExpression');
  });

  it('vLLM reports the raised text bare as a 500 internal_error', () => {
    const result = vllm(500, { type: 'error', error: { type: 'internal_error', message: 'System message must be at the beginning.' } });
    expect(result).toMatchObject({ status: 400, kind: 'template', headers: { 'x-should-retry': 'false' } });
    expect(result.body.error.message).toContain('(vLLM chat template error, HTTP 500.');
  });

  it("Ollama's strict renderer words it in lower case, in its own Anthropic envelope (ollama/ollama#17774)", () => {
    // middleware/anthropic.go writeError → NewError(500, …): api_error plus a request id.
    const body = { type: 'error', error: { type: 'api_error', message: 'system message must be at the beginning' }, request_id: 'req_0f3c9a1be2d4475a8c1e6b20' };
    const result = translateBackendError({ status: 500, body: JSON.stringify(body), backend: 'ollama', endpoint: 'box' });
    expect(result).toMatchObject({ status: 400, kind: 'template', headers: { 'x-should-retry': 'false' } });
    const message = result.body.error.message;
    expect(message).toMatch(/^The model server's chat template rejected the request: system message must be at the beginning \(Ollama chat template error, HTTP 500\. Retrying the same request will not help\./);
    // The fix Ollama has, not llama.cpp's or vLLM's flags.
    expect(message).toContain('Modelfile');
    expect(message).not.toMatch(/--chat-template|--jinja/);
  });

  it('llama.cpp and vLLM are told of their own template flags', () => {
    expect(fromFixture('err-system-mid.http').body.error.message).toContain('--chat-template-file');
    const fromVllm = vllm(500, { type: 'error', error: { type: 'internal_error', message: 'System message must be at the beginning.' } }).body.error.message;
    expect(fromVllm).toContain('--chat-template');
    expect(fromVllm).not.toMatch(/--jinja|--chat-template-file|Modelfile/);
  });
});

describe('translateBackendError: loading and availability', () => {
  it('llama.cpp 503 "Loading model" → 529 overloaded_error naming the endpoint, retry-after kept', () => {
    const result = translateBackendError({
      status: 503,
      headers: { 'Retry-After': '5' },
      body: '{"error":{"message":"Loading model","type":"unavailable_error","code":503}}',
      backend: 'llama.cpp',
      endpoint: 'gpu-box',
    });
    expect(result).toMatchObject({ status: 529, kind: 'loading', headers: { 'retry-after': '5' } });
    expect(result.body.error).toEqual({
      type: 'overloaded_error',
      message: `The model server 'gpu-box' is still loading its model (HTTP 503 "Loading model"); requests will work once it has finished.`,
    });
    expect(result.headers['x-should-retry']).toBeUndefined();
  });

  it('reads retry-after from fetch Headers too', () => {
    const result = translateBackendError({
      status: 429,
      headers: new Headers({ 'retry-after': '7' }),
      body: '{"error":{"code":429,"message":"slow down","type":"rate_limit_error"}}',
      backend: 'other',
    });
    expect(result).toMatchObject({ status: 429, headers: { 'retry-after': '7' }, body: { error: { type: 'rate_limit_error' } } });
  });

  it('unreachableBackendError names the endpoint and what is down', () => {
    const down = unreachableBackendError({ endpoint: 'gpu-box', reason: 'connection refused: the host answers but nothing listens on port 8080' });
    expect(down).toMatchObject({ status: 503, kind: 'unreachable', original: '' });
    expect(down.body.error).toEqual({
      type: 'api_error',
      message: "Cannot reach the model server 'gpu-box': connection refused: the host answers but nothing listens on port 8080",
    });
    expect(down.headers['x-should-retry']).toBeUndefined();
    expect(unreachableBackendError({ endpoint: 'x', reason: 'no such host', retryable: false }).headers['x-should-retry']).toBe('false');
  });
});

describe('translateBackendError: other envelopes → Anthropic type matching the status', () => {
  it('llama.cpp 404 (err-404.http)', () => {
    expect(fromFixture('err-404.http')).toMatchObject({
      status: 404,
      kind: 'mapped',
      body: { type: 'error', error: { type: 'not_found_error', message: 'File Not Found' } },
    });
  });

  it.each(['err-no-messages.http', 'err-bad-json.http'])('llama.cpp deterministic 500 (%s) → api_error, x-should-retry: false', (file) => {
    const result = fromFixture(file);
    expect(result).toMatchObject({ status: 500, kind: 'mapped', headers: { 'x-should-retry': 'false' }, body: { error: { type: 'api_error' } } });
    expect(llamaHttp(file).body).toContain(JSON.stringify(result.body.error.message));
  });

  it('a llama.cpp output-parse 500 stays retryable', () => {
    const body = '{"error":{"code":500,"message":"Failed to parse input at pos 22: <think>\\n","type":"server_error"}}';
    const result = translateBackendError({ status: 500, body, backend: 'llama.cpp' });
    expect(result.body.error.type).toBe('api_error');
    expect(result.headers['x-should-retry']).toBeUndefined();
  });

  it.each([
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [403, 'permission_error'],
    [404, 'not_found_error'],
    [413, 'request_too_large'],
    [422, 'invalid_request_error'],
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [501, 'api_error'],
    [503, 'overloaded_error'],
    [529, 'overloaded_error'],
  ])('HTTP %i → %s', (status, type) => {
    const body = JSON.stringify({ error: { code: status, message: 'something', type: 'server_error' } });
    expect(translateBackendError({ status, body, backend: 'llama.cpp' })).toMatchObject({ status, body: { error: { type } } });
  });

  it('llama.cpp 401 "Invalid API Key" says which setting to fix', () => {
    const result = translateBackendError({
      status: 401,
      body: '{"error":{"message":"Invalid API Key","type":"authentication_error","code":401}}',
      backend: 'llama.cpp',
      endpoint: 'gpu-box',
    });
    expect(result.body.error.type).toBe('authentication_error');
    expect(result.body.error.message).toMatch(/^Invalid API Key \(the model server 'gpu-box' rejected the API key: set api_key or api_key_env/);
  });

  it('vLLM {"error":"Unauthorized"}', () => {
    const { error } = vllm(401, { error: 'Unauthorized' }).body;
    expect(error.type).toBe('authentication_error');
    expect(error.message).toMatch(/^Unauthorized \(the model server 'dgx1' rejected the API key/);
  });

  it('vLLM NotFoundError in an Anthropic envelope gets the Anthropic type', () => {
    expect(vllm(404, { type: 'error', error: { type: 'NotFoundError', message: 'The model `claude-sonnet-4-5` does not exist.' } })).toMatchObject({
      status: 404,
      kind: 'mapped',
      body: { error: { type: 'not_found_error', message: 'The model `claude-sonnet-4-5` does not exist.' } },
    });
  });

  it("vLLM OpenAI-shaped validation error and FastAPI 422 keep the text Claude Code's role fallback looks for", () => {
    const openai = vllm(400, { error: { message: "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'messages', 1, 'role')}", type: 'Bad Request', param: 'messages.1.role', code: 400 } });
    expect(openai.body.error.type).toBe('invalid_request_error');
    expect(openai.body.error.message).toMatch(/^1 validation error:/);
    const fastapi = vllm(422, { detail: [{ loc: ['body', 'messages', 1, 'role'], msg: "Input should be 'user' or 'assistant'", type: 'literal_error' }] });
    expect(fastapi.body.error).toEqual({ type: 'invalid_request_error', message: "messages.1.role: Input should be 'user' or 'assistant'" });
  });

  it('vLLM max_tokens above max_model_len (500 on /v1/messages) → 400, not retried', () => {
    const result = vllm(500, {
      type: 'error',
      error: { type: 'internal_error', message: 'max_completion_tokens=40000 cannot be greater than max_model_len=max_total_tokens=32768. Please request fewer output tokens.' },
    });
    expect(result).toMatchObject({ status: 400, kind: 'max_tokens', headers: { 'x-should-retry': 'false' } });
    expect(result.body.error.message).toMatch(/^max_completion_tokens=40000 cannot be greater/);
  });

  it('an HTML error page → the status-matched type with a short visible-text excerpt', () => {
    const html = '<html><head><title>502 Bad Gateway</title><style>body{}</style></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx/1.24.0</center></body></html>';
    const result = translateBackendError({ status: 502, body: html, backend: 'vllm', endpoint: 'dgx1' });
    expect(result).toMatchObject({ status: 502, kind: 'non_json' });
    expect(result.body.error).toEqual({
      type: 'api_error',
      message: "The model server 'dgx1' answered HTTP 502 with a non-JSON body: 502 Bad Gateway 502 Bad Gateway nginx/1.24.0",
    });
  });

  it('an empty body and a non-error status are still valid Anthropic errors', () => {
    expect(translateBackendError({ status: 503, body: '', backend: 'other' }).body.error).toEqual({
      type: 'overloaded_error',
      message: 'The model server answered HTTP 503 with an empty body',
    });
    expect(translateBackendError({ status: 200, body: '{"error":{"message":"odd"}}', backend: 'other' })).toMatchObject({
      status: 502,
      body: { error: { type: 'api_error', message: 'odd' } },
    });
  });
});
