/**
 * What a backend error means, in words a person can act on: what happened,
 * the likely causes, what to try. Data, one entry per kind of failure; the
 * first entry whose test matches explains the error. Each entry is tested
 * against the real body it was written for (test/shim/translate/error-catalogue.test.ts).
 *
 * Facts behind the entries: docs/backends.md §2 (llama.cpp error bodies),
 * §4 (vLLM), §6 (measured on a real llama-server).
 */
import type { BackendKind } from '../../config/schema.js';

/** Where a failed request's error came from. `outage`: the job waited defaults.outage_wait_s for its endpoint to
 * serve its model again, in vain. */
export type ErrorSource = 'http' | 'stream' | 'cut' | 'connect' | 'answer' | 'outage';

export interface ErrorFacts {
  /** HTTP status the backend answered (0 when there was no answer). */
  readonly status: number;
  /** The backend's own words (its error body or event data), and what the shim made of them. */
  readonly text: string;
  readonly source: ErrorSource | undefined;
  readonly path: string;
  /** The endpoint's backend: where the fix differs by server, the advice is this server's own. */
  readonly backend: BackendKind;
}

export interface Explanation {
  /** Catalogue id, stable for tests and dashboards. */
  readonly kind: string;
  readonly what: string;
  readonly causes: readonly string[];
  readonly try: readonly string[];
}

/** Words that differ by backend: each server gets fixes it has (Ollama has no --chat-template). */
type PerBackend = Readonly<Record<BackendKind, readonly string[]>>;

interface Entry {
  readonly kind: string;
  readonly matches: (facts: ErrorFacts) => boolean;
  readonly what: string;
  readonly causes: readonly string[] | PerBackend;
  readonly try: readonly string[] | PerBackend;
}

// A list has no backend keys, so `in` tells the two shapes apart.
const forBackend = (words: readonly string[] | PerBackend, backend: BackendKind): readonly string[] => ('ollama' in words ? words[backend] : words);

const has = (re: RegExp) => (f: ErrorFacts): boolean => re.test(f.text);

const STRICTER_TEMPLATE = 'a template stricter than Claude Code needs (e.g. "System message must be at the beginning" for mid-conversation system messages)';
const FOLDED_ALREADY = 'localagents folds system messages already; if it still fails, report the template line the error names';

/** A template refusing the conversation; its fixes also go to Claude Code (template-error.ts). */
const TEMPLATE: Entry = {
  kind: 'template',
  // Ollama's Go renderers say it in lower case (ollama/ollama#17774).
  matches: has(/Jinja Exception|Unable to generate parser for this template|chat template rejected|System message must be at the beginning|Conversation roles must alternate/i),
  what: "The model's chat template refused the conversation before the model ran; the same request fails the same way on every retry.",
  causes: {
    'llama.cpp': [STRICTER_TEMPLATE, 'a --chat-template (or --chat-template-file) that does not belong to this model'],
    vllm: [STRICTER_TEMPLATE, 'a --chat-template that does not belong to this model'],
    // ollama/ollama#17754: qwen3.8's renderer in Ollama 0.32.12 and 0.32.13 refused Claude Code's mid-conversation system messages.
    ollama: [`${STRICTER_TEMPLATE}: the model's built-in renderer (the RENDERER line of its Modelfile) or its Modelfile TEMPLATE, e.g. qwen3.8 on Ollama 0.32.12–0.32.13`],
    other: [STRICTER_TEMPLATE, 'a chat template that does not belong to this model'],
  },
  try: {
    'llama.cpp': ["use the model's own template with --jinja, or a --chat-template-file without the failing raise_exception", FOLDED_ALREADY],
    vllm: ["start vLLM with --chat-template pointing at the model's template without the failing raise_exception", FOLDED_ALREADY],
    // #17757 and #17855 (merged August 2026) made the Qwen renderers accept them.
    ollama: [
      'update Ollama: newer releases render mid-conversation system messages for the models whose renderer refused them',
      'or make a variant of the model whose Modelfile has, in place of its RENDERER line, a TEMPLATE that renders a system message wherever it comes (`ollama show --modelfile <model>` prints the Modelfile, `ollama create <new name> -f <file>` builds the variant), and name the variant in models.yaml',
      // A Go renderer names no template line.
      'localagents folds system messages already; if Ollama still refuses, report it with the job\'s requests.jsonl',
    ],
    other: ["give the server a chat template that accepts this conversation (the server's documentation says how)", FOLDED_ALREADY],
  },
};

/**
 * A template that breaks on Claude Code's tool definitions themselves: it reads JSON-Schema fields as if every
 * parameter had them (a `type`, an `additionalProperties` object), and llama.cpp's Jinja engine stops where
 * Python's Jinja carries on. Measured on the llama.cpp source's templates (docs/templates.md): Command R+ tool_use
 * ("Function has no builtins") and ByteDance Seed-OSS ("Cannot perform operation in on undefined values"). The
 * tools are the tools: no rewrite of the request makes them fit, so the fix is another template.
 */
const TEMPLATE_TOOL_SCHEMA: Entry = {
  kind: 'template_tool_schema',
  // llama.cpp's Jinja engine's own type errors (common/jinja), not a template's raise_exception.
  matches: has(/Cannot perform operation \w+ on undefined values|\bhas no builtins\b/),
  what: "The model's chat template broke while rendering Claude Code's tool definitions (it expects every tool parameter to have fields JSON Schema leaves optional); the same request fails the same way on every retry.",
  causes: ["a --chat-template-file that prints each tool parameter as a Python type (Command R+ tool_use, ByteDance Seed-OSS), which llama.cpp's Jinja engine cannot run on Claude Code's tools"],
  try: [
    "start llama-server with a template of the model's family that renders tools as JSON: for Command R+ the Command R7B one (models/templates/CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja in the llama.cpp source)",
    'or drop --chat-template-file and use the template inside the GGUF, if it renders tools as JSON',
    'docs/templates.md (localagents) lists which of llama.cpp\'s templates take a whole Claude Code session',
  ],
};

const CATALOGUE: readonly Entry[] = [
  {
    kind: 'output_parser',
    matches: has(/does not match the expected [a-z0-9-]+ format|Failed to parse input at pos \d+/i),
    what: "The model's output did not follow its chat template's tool-call format, so the server's output parser gave up on the answer.",
    causes: [
      'a model too small, or not tuned, for tool calling (it writes something that looks like a tool call but is not)',
      'a wrong --chat-template (or --chat-template-file) for this model',
      'a reasoning model started without matching --reasoning / --reasoning-format settings',
      'a broken or too aggressive quantisation producing garbage',
      'a llama.cpp build whose parser for this template has a bug (known regressions between builds)',
    ],
    try: [
      'pick a larger or tool-tuned model from the ones the endpoints serve',
      "start llama-server with --jinja and the model's own template (drop --chat-template overrides)",
      'for a reasoning model, check --reasoning-format / --reasoning-budget',
      'try another quantisation, or a different llama.cpp build',
    ],
  },
  {
    kind: 'template_needs_jinja',
    matches: has(/requires --jinja/),
    what: 'The server cannot render tool definitions: it runs without its Jinja chat-template engine.',
    causes: ['llama-server was started without --jinja'],
    try: ['restart llama-server with --jinja'],
  },
  TEMPLATE_TOOL_SCHEMA,
  TEMPLATE,
  {
    kind: 'context_overflow',
    matches: has(/exceed_context_size_error|exceeds the available context size|is larger than the max context size|prompt is too long/),
    what: "The prompt did not fit the model's context window: llama.cpp checks the prompt against one slot's window.",
    causes: [
      "a slot's window is -c divided by --parallel (unless --kv-unified): -c 65536 --parallel 4 gives each request 16384 tokens",
      "Claude Code's first request alone is ~12–20k tokens (system prompt and tools), and the conversation grows each turn",
    ],
    try: [
      'give each slot more room: raise -c or lower --parallel (at least 64k per slot for real work)',
      'set context: in models.yaml to the per-slot window so Claude Code compacts in time',
    ],
  },
  {
    kind: 'vllm_max_model_len',
    matches: has(/maximum context length is \d+ tokens|cannot be greater than max_model_len/),
    what: "vLLM refused the request: prompt plus requested output is longer than the server's max_model_len.",
    causes: ['vLLM counts prompt + max_tokens against --max-model-len (llama.cpp counts the prompt only)', '--max-model-len set low to fit memory'],
    try: ['start vLLM with a larger --max-model-len', 'lower CLAUDE_CODE_MAX_OUTPUT_TOKENS in the endpoint env'],
  },
  {
    kind: 'vllm_tool_choice',
    matches: has(/tool choice requires --enable-auto-tool-choice|requires --tool-call-parser to be set/),
    what: "vLLM refused the request before the model ran: it was started without tool calling, and every Claude Code request offers tools (vLLM's Anthropic endpoint turns them into tool_choice \"auto\").",
    causes: ['vLLM started without --enable-auto-tool-choice and --tool-call-parser (both are needed; tool calling is not optional for Claude Code)'],
    try: ['restart vLLM with --enable-auto-tool-choice --tool-call-parser <parser for your model>: qwen3_coder or qwen3_xml for Qwen3.x, hermes for older Qwen, llama3_json for Llama 3.x, mistral for Mistral'],
  },
  {
    kind: 'outage',
    matches: (f) => f.source === 'outage',
    what: "The job's model server stopped serving its model and did not serve it again within defaults.outage_wait_s; localagents held the job's requests and probed it meanwhile.",
    causes: ['the server was stopped, crashed or is still loading', 'another model was started on its port'],
    try: ['start the server with the job\'s model again, then resume the job (its session continues where it stopped)', 'raise defaults.outage_wait_s in models.yaml for servers that take longer to come back'],
  },
  {
    kind: 'loading',
    matches: (f) => /Loading model|still loading its model/i.test(f.text),
    what: 'The server is still loading its model; it answers every request with 503 until it is ready.',
    causes: ['the server was just (re)started; a large model takes minutes to load'],
    try: ['wait; Claude Code retries on its own. If it never finishes, read the server log (out of memory while loading?)'],
  },
  {
    kind: 'out_of_memory',
    matches: has(/out of memory|OutOfMemoryError|Insufficient Memory|failed to allocate|compared to KV size|KV cache is full|No available memory for the cache blocks/i),
    what: 'The server ran out of memory (GPU or KV cache) while working on the request.',
    causes: [
      'too large a context or too many parallel slots for the GPU memory left after the weights',
      'other processes using the GPU',
      'a prompt larger than the KV cache can hold',
    ],
    try: ['lower -c or --parallel (vLLM: --max-model-len, --gpu-memory-utilization)', 'use a smaller quantisation or KV cache type (-ctk q8_0 -ctv q8_0)', 'free the GPU of other work'],
  },
  {
    kind: 'stream_cut',
    matches: (f) => f.source === 'cut',
    what: 'The connection to the server broke off in the middle of the answer.',
    causes: ['the server crashed or was restarted (out of memory, a segfault, a supervisor)', 'a proxy between here and the server timed out a long answer'],
    try: ['read the server log at that time', 'for a proxy, raise its read timeout above the longest answer (minutes for a slow model)'],
  },
  {
    kind: 'unreachable',
    matches: (f) => f.source === 'connect',
    what: 'The server could not be reached at all.',
    causes: ['the server is not running, or listens on another host or port', 'a firewall between here and the server'],
    try: ['start the server; check base_url in models.yaml; localagents doctor says which part fails'],
  },
  {
    kind: 'auth',
    matches: (f) => f.status === 401 || f.status === 403 || /Invalid API Key|Unauthorized|authentication_error|permission_error/.test(f.text),
    what: 'The server refused the API key (or its absence).',
    causes: ['the server runs with --api-key and models.yaml has none, or a different one', 'vLLM accepts only Authorization: Bearer', 'a proxy in front of the server wants its own credentials'],
    try: ['set api_key or api_key_env for this endpoint in models.yaml to the key the server was started with'],
  },
  {
    kind: 'no_messages_api',
    matches: (f) => f.status === 404 && f.path.startsWith('/v1/messages') && !/model/i.test(f.text),
    what: 'The server has no Anthropic Messages API (/v1/messages): it answered 404 Not Found.',
    causes: ['a llama.cpp build older than the Messages API, or a vLLM before its Anthropic endpoint', 'base_url points at a different server (or includes a path such as /v1)'],
    try: ['update llama.cpp or vLLM', 'set base_url to the server root (http://host:port, without /v1)'],
  },
  {
    kind: 'model_not_found',
    matches: (f) => f.status === 404 || /model '.*' not found|does not exist/.test(f.text),
    what: 'The server does not serve the model the request named.',
    causes: ['the served model id changed since the menu was read (a router-mode llama-server, a restarted vLLM with another --served-model-name)'],
    try: ['list the models again and pick one the server serves now'],
  },
];

function fallback(facts: ErrorFacts): Explanation {
  if (facts.source === 'answer') {
    return { kind: 'malformed_answer', what: 'The server answered 200 but not with a complete Messages answer.', causes: ['a proxy or server that only half speaks the Anthropic API'], try: ['check base_url points at llama-server or vLLM itself'] };
  }
  if (facts.status >= 500 || facts.source === 'stream') {
    return { kind: 'server_error', what: 'The server failed while answering (an internal error).', causes: ['a bug or resource problem on the server; its log says which'], try: ['read the server log at that time; retry later'] };
  }
  return { kind: 'request_refused', what: `The server refused the request (HTTP ${facts.status}).`, causes: ['a request shape or option this server does not accept'], try: ['read the server message above; report it with requests.jsonl (localagents keeps backend quirks in its shim)'] };
}

/** The explanation of one backend error; every error gets one (the generic ones say less). */
export function explainBackendError(facts: ErrorFacts): Explanation {
  const entry = CATALOGUE.find((e) => e.matches(facts));
  if (entry === undefined) return fallback(facts);
  return worded(entry, facts.backend);
}

function worded(entry: Entry, backend: BackendKind): Explanation {
  return { kind: entry.kind, what: entry.what, causes: forBackend(entry.causes, backend), try: forBackend(entry.try, backend) };
}

/** What to try for a template refusal on this backend: the catalogue's words, for the message Claude Code gets. */
export function templateFixes(backend: BackendKind): readonly string[] {
  return worded(TEMPLATE, backend).try;
}

/** One paragraph for a person (and for the calling Claude). */
export function explanationText(e: Explanation): string {
  return `${e.what} Likely: ${e.causes.join('; ')}. Try: ${e.try.join('; ')}.`;
}
