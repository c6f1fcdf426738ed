/**
 * Every entry of the error catalogue explains the real error body it was
 * written for. Bodies come from test/fixtures/llama-server (captured from
 * a real llama-server), from the simulator (which copies vLLM's wording), or
 * are quoted from the servers' source (docs/backends.md) where no capture exists
 * (each says where).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { explainBackendError, type ErrorFacts } from '../../../src/shim/translate/error-catalogue.js';
import { translateStreamErrorData } from '../../../src/shim/translate/stream-error.js';
import { llamaHttp } from '../rewrite/fixtures.js';
import { MODEL_WORDS } from '../../helpers/model-words.js';

const facts = (status: number, text: string, extra: Partial<ErrorFacts> = {}): ErrorFacts => ({ status, text, source: 'http', path: '/v1/messages', backend: 'llama.cpp', ...extra });
const fixture = (name: string): ErrorFacts => {
  const { status, body } = llamaHttp(name);
  return facts(status, body);
};

// llama.cpp's output parser, measured on a real server (docs/backends.md §6): inside a 200 stream, and as a 500 when not streamed.
const PEG_STREAM = '{"code":500,"message":"The model produced output that does not match the expected peg-native format","type":"server_error"}';
const PEG_HTTP = '{"error":{"code":500,"message":"The model produced output that does not match the expected peg-native format","type":"server_error"}}';

/**
 * vLLM without a tool-call parser: vllm/renderers/online_renderer.py (OnlineRenderer.render_chat) returns
 * create_error_response(message) — type BadRequestError, HTTP 400 — and the Anthropic router
 * (vllm/entrypoints/anthropic/api_router.py translate_error_response) sends it as AnthropicErrorResponse.
 */
const VLLM_NO_PARSER = (message: string): string => `{"type":"error","error":{"type":"BadRequestError","message":"${message}"}}`;

/** Ollama's strict renderer (ollama/ollama#17774): middleware/anthropic.go writeError → 500 api_error with a request id. */
const OLLAMA_SYSTEM_MID = '{"type":"error","error":{"type":"api_error","message":"system message must be at the beginning"},"request_id":"req_0f3c9a1be2d4475a8c1e6b20"}';
/** Flags of llama-server and vLLM that Ollama does not have. */
const NOT_OLLAMA_FLAGS = /--chat-template|--jinja|--reasoning|--parallel|--max-model-len/;

/** Captured from llama-server de3ff815 (npm run test:real) with --chat-template-file <template>, on a recorded Claude Code request. */
const TOOL_SCHEMA_SEED_OSS = '{"error":{"code":400,"message":"Unable to generate parser for this template. Automatic parser generation failed: \\n------------\\nWhile executing BinaryExpression at line 49, column 16 in source:\\n... if t == \\"string\\" -%}str↵    {%- elif t in (\\"number\\", \\"integer\\") -%}int↵    {%- ...\\n                                           ^\\nError: Cannot perform operation in on undefined values","type":"invalid_request_error"}}';
const TOOL_SCHEMA_COMMAND_R_PLUS = '{"error":{"code":400,"message":"Unable to generate parser for this template. Automatic parser generation failed: \\n------------\\nWhile executing MemberExpression at line 10, column 32 in source:\\n...l\\"↵} %}↵↵{%- if basic_type_map[json_spec.type] is defined %}↵    {{- basic_type_...\\n                                           ^\\nError: Function has no builtins","type":"invalid_request_error"}}';

const CASES: ReadonlyArray<readonly [kind: string, what: string, facts: ErrorFacts]> = [
  ['output_parser', 'peg-native error event inside a 200 stream', facts(200, PEG_STREAM, { source: 'stream' })],
  ['output_parser', 'peg-native error as HTTP 500', facts(500, PEG_HTTP)],
  // The same throw names the template's format (common/chat.cpp common_chat_format_name): Gemma 4 and MiniMax-M3 templates.
  ['output_parser', 'peg-gemma4 error event', facts(200, PEG_STREAM.replace('peg-native', 'peg-gemma4'), { source: 'stream' })],
  ['output_parser', 'peg-minimax-m3 error as HTTP 500', facts(500, PEG_HTTP.replace('peg-native', 'peg-minimax-m3'))],
  // docs/backends.md §2.4: a model whose output broke the parser, non-streamed.
  ['output_parser', '"Failed to parse input at pos N"', facts(500, '{"error":{"code":500,"message":"Failed to parse input at pos 22: <think>\\n","type":"server_error"}}')],
  // llama.cpp tools/server (utils: "tools param requires --jinja flag"), as classify-error.ts already recognises.
  ['template_needs_jinja', 'tools without --jinja', facts(500, '{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}')],
  ['template_tool_schema', 'ByteDance-Seed-OSS.jinja on Claude Code\'s tools (captured, de3ff815)', facts(400, TOOL_SCHEMA_SEED_OSS)],
  ['template_tool_schema', 'CohereForAI-c4ai-command-r-plus-tool_use.jinja on Claude Code\'s tools (captured, de3ff815)', facts(400, TOOL_SCHEMA_COMMAND_R_PLUS)],
  ['template', 'Jinja raise_exception (captured, Aug 2026 build)', fixture('err-system-mid.http')],
  ['template', 'parser generation failed (captured, b9553)', fixture('b9553/err-system-mid.http')],
  ['template', 'Ollama strict renderer (ollama/ollama#17774)', facts(500, OLLAMA_SYSTEM_MID, { backend: 'ollama' })],
  ['context_overflow', 'exceed_context_size_error (captured)', fixture('err-context.http')],
  ['context_overflow', 'exceed_context_size_error while streaming (captured, b9553)', fixture('b9553/err-context-stream.http')],
  ['vllm_max_model_len', 'vLLM prompt + max_tokens > max_model_len (simulator wording, from vLLM source)', facts(500, '{"type":"error","error":{"type":"internal_error","message":"This model\'s maximum context length is 32768 tokens. However, you requested 32000 output tokens and your prompt contains at least 769 input tokens, for a total of at least 32769 tokens. Please reduce the length of the input prompt or the number of requested output tokens."}}')],
  ['vllm_max_model_len', 'vLLM max_tokens alone too large', facts(400, '{"type":"error","error":{"type":"BadRequestError","message":"max_completion_tokens=40000 cannot be greater than max_model_len=max_total_tokens=32768. Please request fewer output tokens."}}')],
  ['vllm_tool_choice', 'vLLM without --enable-auto-tool-choice: tools, so tool_choice "auto"', facts(400, VLLM_NO_PARSER('\\"auto\\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'))],
  ['vllm_tool_choice', 'vLLM without --tool-call-parser: tool_choice any', facts(400, VLLM_NO_PARSER('tool_choice=\\"required\\" requires --tool-call-parser to be set'))],
  ['vllm_tool_choice', 'vLLM without --tool-call-parser: tool_choice naming a tool', facts(400, VLLM_NO_PARSER('tool_choice=function \\"Bash\\" requires --tool-call-parser to be set'))],
  ['loading', 'llama.cpp 503 Loading model (docs/backends.md §2.2)', facts(503, '{"error":{"message":"Loading model","type":"unavailable_error","code":503}}')],
  // llama.cpp server-context.cpp, when llama_decode finds no room in the KV cache.
  ['out_of_memory', 'KV cache too small for the prompt', facts(500, '{"error":{"code":500,"message":"Input prompt is too big compared to KV size. Please try increasing KV size.","type":"server_error"}}')],
  ['out_of_memory', 'vLLM CUDA out of memory (torch wording)', facts(500, '{"type":"error","error":{"type":"internal_error","message":"CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.64 GiB of which 1.12 GiB is free."}}')],
  ['stream_cut', 'connection dropped mid-stream (undici\'s words)', facts(200, 'other side closed', { source: 'cut' })],
  ['outage', 'the outage wait ran out (src/shim/outage-hold.ts)', facts(503, "The model server 'gpu' did not serve the job's model again within defaults.outage_wait_s=600 s (localagents held the job's requests since 2026-12-02T12:00:00.000Z); it is loading its model", { source: 'outage' })],
  ['unreachable', 'connection refused', facts(503, 'Cannot reach the model server \'gpu\': connection refused: the host is up but nothing listens on port 8080', { source: 'connect' })],
  ['auth', 'llama.cpp 401 (docs/backends.md §2.2, measured)', facts(401, '{"error":{"message":"Invalid API Key","type":"authentication_error","code":401}}')],
  ['auth', 'vLLM 401 (docs/backends.md §4)', facts(401, '{"error":"Unauthorized"}')],
  ['auth', '403 from a proxy', facts(403, '<html><body><h1>403 Forbidden</h1></body></html>')],
  ['no_messages_api', '404 File Not Found on /v1/messages (captured)', fixture('err-404.http')],
  ['model_not_found', 'vLLM unknown served model (simulator wording)', facts(404, '{"type":"error","error":{"type":"NotFoundError","message":"The model `claude-x` does not exist."}}')],
];

describe('error catalogue: each entry explains its real body', () => {
  it.each(CASES)('%s: %s', (kind, _what, f) => {
    const e = explainBackendError(f);
    expect(e.kind).toBe(kind);
    expect(e.what.length).toBeGreaterThan(20);
    expect(e.causes.length).toBeGreaterThan(0);
    expect(e.try.length).toBeGreaterThan(0);
  });

  it('explanations reach people too (CLI, dashboard, records): none names an MCP tool', () => {
    for (const [, what, f] of CASES) {
      for (const backend of ['llama.cpp', 'vllm', 'ollama', 'other'] as const) {
        const e = explainBackendError({ ...f, backend });
        expect([e.what, ...e.causes, ...e.try].join(' '), `${what} (${backend})`).not.toMatch(MODEL_WORDS);
      }
    }
  });

  it('every entry has at least one real body above', () => {
    // The entries as written (one `kind: '…',` line each), read from the source so production exports nothing for this test.
    const source = readFileSync(fileURLToPath(new URL('../../../src/shim/translate/error-catalogue.ts', import.meta.url)), 'utf8');
    const kinds = [...source.matchAll(/^ +kind: '([a-z_]+)',$/gm)].map((m) => m[1]);
    expect(kinds.length).toBeGreaterThan(10);
    expect(new Set(CASES.map(([kind]) => kind))).toEqual(new Set(kinds));
  });

  it('the peg-native explanation names the usual causes', () => {
    const e = explainBackendError(facts(200, PEG_STREAM, { source: 'stream' }));
    const text = [e.what, ...e.causes, ...e.try].join(' ');
    for (const word of ['tool calling', '--chat-template', '--reasoning', 'quantisation']) expect(text).toContain(word);
  });

  it('a template refusal on Ollama is explained with fixes Ollama has (Modelfile, a newer Ollama), never llama.cpp or vLLM flags', () => {
    const e = explainBackendError(facts(500, OLLAMA_SYSTEM_MID, { backend: 'ollama' }));
    const text = [e.what, ...e.causes, ...e.try].join(' ');
    expect(e.kind).toBe('template');
    expect(text).toContain('Modelfile');
    expect(text).toMatch(/update Ollama/i);
    expect(text).not.toMatch(NOT_OLLAMA_FLAGS);
  });

  it('the same refusal from llama.cpp and vLLM names the flag each has for a template', () => {
    const llama = explainBackendError(fixture('err-system-mid.http'));
    expect(llama.try.join(' ')).toContain('--chat-template-file');
    const vllm = explainBackendError(facts(500, '{"type":"error","error":{"type":"internal_error","message":"System message must be at the beginning."}}', { backend: 'vllm' }));
    expect(vllm.kind).toBe('template');
    expect(vllm.try.join(' ')).toContain('--chat-template');
    // vLLM takes the template file through --chat-template itself; it has neither --jinja nor --chat-template-file.
    expect(vllm.try.join(' ')).not.toMatch(/--jinja|--chat-template-file/);
    for (const e of [llama, vllm]) expect([...e.causes, ...e.try].join(' ')).not.toContain('Modelfile');
  });

  it('the vLLM tool-parser explanation gives the flags to restart with', () => {
    const e = explainBackendError(facts(400, VLLM_NO_PARSER('\\"auto\\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set')));
    expect(e.try.join(' ')).toMatch(/--enable-auto-tool-choice --tool-call-parser .*qwen3_coder/);
  });

  it('the shim keeps the in-stream error\'s words, so the catalogue can read them', () => {
    expect(translateStreamErrorData(PEG_STREAM, 'llama.cpp').body.error.message).toContain('peg-native format');
  });

  it('an unknown error still gets a generic explanation by status', () => {
    expect(explainBackendError(facts(500, '{"error":{"message":"something new"}}')).kind).toBe('server_error');
    expect(explainBackendError(facts(422, '{"detail":"odd"}')).kind).toBe('request_refused');
  });
});
