/**
 * The shape of models.yaml and its sidecar models.local.yaml. Strict: an unknown
 * key is an error that names the key, because a typo silently ignored is a
 * setting the user believes is on.
 */
import { z } from 'zod';
import { sandboxSchema } from './sandbox-schema.js';
import { PUBLISHED_PRICES } from './prices.js';

/** A defaults.prices entry: USD per million tokens (see prices.ts). */
const priceSchema = z.strictObject({
  input: z.number().min(0).max(10_000),
  cache_write: z.number().min(0).max(10_000),
  cache_write_1h: z.number().min(0).max(10_000).optional(),
  cache_read: z.number().min(0).max(10_000),
  output: z.number().min(0).max(10_000),
});

export const BACKENDS = ['llama.cpp', 'vllm', 'ollama', 'other'] as const;
export type BackendKind = (typeof BACKENDS)[number];

export const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

export const SETTING_SOURCES = ['user', 'project', 'local'] as const;

/** defaults.failover: whether a running job may move to another endpoint serving its model (off by default). */
export const FAILOVER_MODES = ['off', 'same_model'] as const;
export type FailoverMode = (typeof FAILOVER_MODES)[number];

const name = z.string().min(1, 'must not be empty');

/** http(s) URL with nothing after the host but an optional trailing slash: we append /v1/... ourselves. */
export const baseUrl = z.string().superRefine((value, ctx) => {
  // "gpu-box:8080" parses as a URL with scheme "gpu-box:"; catch the missing http:// first.
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value) && URL.canParse(`http://${value}`) && !/\s/.test(value)) {
    ctx.addIssue({ code: 'custom', message: `"${value}" has no http:// or https:// in front; did you mean http://${value}?` });
    return;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: `"${value}" is not a URL; expected e.g. http://gpu-box:8080` });
    return;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    ctx.addIssue({ code: 'custom', message: `"${value}" uses ${url.protocol.slice(0, -1)}; expected an http:// or https:// URL` });
    return;
  }
  if (url.pathname !== '/' && url.pathname !== '') {
    ctx.addIssue({
      code: 'custom',
      message: `"${value}" has a path (${url.pathname}); give the server root, e.g. ${url.protocol}//${url.host} — localagents adds /v1/messages itself`,
    });
  }
  if (url.username || url.password) {
    ctx.addIssue({ code: 'custom', message: 'has a user name or password in it; put the key in api_key_env instead, so it never shows in listings or logs' });
  }
  if (url.search || url.hash) {
    ctx.addIssue({ code: 'custom', message: `"${value}" has a query or fragment; give the server root only` });
  }
});

const envVarName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

const envMap = z.record(z.string(), z.string({ error: 'env values must be strings (quote numbers and booleans)' }));

export const endpointSchema = z.strictObject({
  base_url: baseUrl,
  backend: z.enum(BACKENDS).default('llama.cpp'),
  host: z.string().optional(),
  notes: z.string().optional(),
  env: envMap.optional(),
  api_key: z.string().optional(),
  api_key_env: envVarName.optional(),
  /** Concurrent localagents jobs allowed here; defaults to the probed slot count (llama.cpp) or 4 (vLLM). */
  max_jobs: z.number().int().min(1).max(256).optional(),
  /**
   * Whether the model here sees images, for servers that do not say (vLLM, Ollama, llama.cpp before
   * multimodal support). A server that says wins, except that false always turns images into notes.
   */
  vision: z.boolean().optional(),
  /**
   * A router-mode llama-server: let a job on one model evict the model a running job uses (each swap reloads the
   * weights and loses that model's cache). Off by default: such a job waits instead.
   */
  share_models: z.boolean().optional(),
});

export const modelSchema = z.strictObject({
  notes: z.string().default(''),
  host: z.string().optional(),
  served_name: z.string().min(1).optional(),
  endpoint: z.string().min(1).optional(),
  context: z.number().int().min(1024).max(16_777_216).optional(),
  bring_up: z.string().optional(),
  /** Labels shown in list_models and the menu (the original's `tags`). */
  tags: z.array(z.string()).optional(),
  /** Applied to jobs that resolve through this entry, over the endpoint's `env` and the defaults. */
  env: envMap.optional(),
  max_turns: z.number().int().min(1).max(10_000).optional(),
  permission_mode: z.enum(PERMISSION_MODES).optional(),
});

/**
 * An `agents:` entry: which local model runs a Claude Code agent definition (`model`, `endpoint`), and, with a
 * `prompt`, the definition itself (it then ranks above the project's and the user's files, like Claude Code's
 * --agents). Only models.yaml may hold one: the sidecar is written by tool calls.
 */
export const agentEntrySchema = z.strictObject({
  model: z.string().min(1).optional(),
  endpoint: z.string().min(1).optional(),
  description: z.string().min(1).optional(),
  prompt: z.string().min(1).optional(),
  tools: z.array(name).optional(),
  disallowed_tools: z.array(name).optional(),
});

export const DEFAULT_SYSTEM_PROMPT_APPEND = [
  'You are a delegate: another Claude session wrote this task for you and will review your work.',
  'Do the task in the working directory, verify it (run the tests or commands the brief names),',
  'and finish with a short report: what you changed (files), how you verified it, and anything left undone or uncertain.',
  'Do not ask questions; nobody will answer. If the brief is ambiguous, make the smallest reasonable choice and say so.',
].join(' ');

/** Build and tool caches that any build re-creates: deleting them loses no work. */
export const DEFAULT_WORKTREE_CACHES = ['node_modules', '__pycache__', '.pytest_cache', '.mypy_cache', '.ruff_cache', '.tox', '.venv', '.gradle', 'target'] as const;

export const defaultsSchema = z.strictObject({
  model: z.string().min(1).optional(),
  permission_mode: z.enum(PERMISSION_MODES).default('acceptEdits'),
  /** Whether run_agent may ask for bypassPermissions at all (a prompt-injected caller must not lift it). */
  allow_bypass_permissions: z.boolean().default(false),
  /**
   * Environment variables a register_endpoint call may name as api_key_env for any host. Without this, a call
   * may only name a variable models.yaml itself sends to that same host (a prompt-injected caller must not
   * point GITHUB_TOKEN at a server of its choosing).
   */
  allowed_key_env: z.array(envVarName).default([]),
  allowed_tools: z.array(name).default(['Read', 'Write', 'Edit', 'MultiEdit', 'Glob', 'Grep', 'Bash', 'TodoWrite', 'NotebookEdit']),
  disallowed_tools: z.array(name).default(['Agent', 'Task']),
  /** Project and local only, like the original: the user's own ~/.claude settings, hooks and CLAUDE.md stay out of delegated sessions. */
  setting_sources: z.array(z.enum(SETTING_SOURCES)).default(['project', 'local']),
  max_turns: z.number().int().min(1).max(10_000).default(200),
  timeout_s: z.number().min(1).max(86_400).default(1800),
  /**
   * The most checks a job's verify command may run (run_agent's verify_attempts asks for fewer, never more).
   * At most 8: Claude Code ends a session after about 8 Stop-hook blocks in a row whatever the hook says.
   */
  max_verify_attempts: z.number().int().min(1).max(8).default(5),
  /** Each run of a verify command is cut after this many seconds. */
  verify_timeout_s: z.number().min(1).max(86_400).default(600),
  probe_timeout_s: z.number().min(0.05).max(60).default(2.5),
  /** How long a queued job waits for its model to come back before failing. */
  queue_grace_s: z.number().min(0).max(86_400).default(120),
  /**
   * How long a running job's requests are held while its endpoint is down, loading or serving another model,
   * counted from the outage's start; 0: answer at once and leave it to Claude Code's ~3 minutes of retries.
   * 600: loading a large GGUF from disk takes one to several minutes, a restart with new flags a few more.
   */
  outage_wait_s: z.number().min(0).max(86_400).default(600),
  /**
   * `same_model`: a running job whose endpoint has not served its model for `failover_after_s` moves to another
   * endpoint serving the same model (the same-model rule) with a free slot and a window no smaller than the one
   * the session was told; its session continues there with a cold cache. `off` (the default): it waits, as above.
   */
  failover: z.enum(FAILOVER_MODES).default('off'),
  /**
   * How long the outage lasts before a move is tried (then at every probe, every 5 s, until one succeeds or the
   * wait ends). 20: longer than a crashed server restarting with its model still in the page cache (seconds), and
   * about what re-reading a 20k-token conversation cold on the other box costs at ~1000 tokens/s; an outage past
   * that is most likely a model loading from disk, which takes minutes.
   */
  failover_after_s: z.number().min(0).max(86_400).default(20),
  system_prompt_append: z.string().default(DEFAULT_SYSTEM_PROMPT_APPEND),
  dump_requests: z.boolean().default(false),
  /**
   * Files git ignores that a worktree job may leave behind and that are safe to delete with an
   * otherwise unchanged worktree: a path counts when one of its folders (or itself) has one of these names.
   */
  worktree_caches: z.array(z.string().regex(/^[^/\\]+$/, 'must be a file or folder name, not a path')).default([...DEFAULT_WORKTREE_CACHES]),
  /** The Claude Code executable for sessions; unset: the Agent SDK's, the one that started localagents, then `claude` on PATH. */
  claude_code_path: z.string().min(1).refine((p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p), 'an absolute path').optional(),
  /** Claude Code's sandbox around each session's Bash (src/config/sandbox-schema.ts). */
  sandbox: sandboxSchema.default(sandboxSchema.parse({})),
  /** Per-million-token prices for the savings estimate, over the published table (src/config/prices.ts). */
  prices: z.record(name, priceSchema).default({}),
  /** The Anthropic model the savings estimate compares with: a key of the published table or of `prices`. */
  compare_with: z.string().min(1).optional(),
}).superRefine((d, ctx) => {
  if (d.compare_with === undefined || d.compare_with in d.prices || d.compare_with in PUBLISHED_PRICES) return;
  const known = [...Object.keys(PUBLISHED_PRICES), ...Object.keys(d.prices)];
  ctx.addIssue({ code: 'custom', path: ['compare_with'], message: `no prices for "${d.compare_with}"; known: ${known.join(', ')} (add it under defaults.prices)` });
});

export const configFileSchema = z.strictObject({
  endpoints: z.record(name, endpointSchema).default({}),
  models: z.record(name, modelSchema.nullable().transform((m) => m ?? modelSchema.parse({}))).default({}),
  defaults: defaultsSchema.default(defaultsSchema.parse({})),
  agents: z.record(name, agentEntrySchema.nullable().transform((a) => a ?? agentEntrySchema.parse({}))).default({}),
});

export type EndpointConfig = z.infer<typeof endpointSchema>;
export type ModelEntry = z.infer<typeof modelSchema>;
export type Defaults = z.infer<typeof defaultsSchema>;
export type AgentEntry = z.infer<typeof agentEntrySchema> & { readonly name: string };
export type ConfigFile = z.infer<typeof configFileSchema>;

/** An endpoint with its name, as the rest of the program sees it. */
export interface Endpoint extends EndpointConfig {
  readonly name: string;
  /** The key to send: `api_key`, or the value of `api_key_env` resolved at load time. */
  readonly apiKey?: string | undefined;
  /** Set when api_key_env names a variable that is unset or empty: the probe reports it if the server wants a key. */
  readonly apiKeyProblem?: string | undefined;
}

/** A menu entry with its name. */
export interface ModelMenuEntry extends ModelEntry {
  readonly name: string;
}

/** The merged registry (models.yaml + models.local.yaml), re-read on every call. */
export interface Config {
  /** The hand-written file, or undefined when none was found (sidecar-only or empty registry). */
  readonly path: string | undefined;
  /** Where register_* writes: models.local.yaml next to `path`. */
  readonly sidecarPath: string;
  readonly endpoints: readonly Endpoint[];
  readonly models: readonly ModelMenuEntry[];
  readonly defaults: Defaults;
  /** models.yaml's `agents:` entries (never the sidecar's). */
  readonly agents?: readonly AgentEntry[] | undefined;
  /** Where the loader looked for the hand-written file, in order (for "no config found" messages). */
  readonly searched?: readonly string[];
  /** Problems that do not stop the registry from loading (an unset api_key_env). */
  readonly warnings?: readonly string[];
  /** The endpoints as models.yaml itself defines them, before the sidecar: what a tool call may not widen. */
  readonly handWrittenEndpoints?: Readonly<Record<string, EndpointConfig>>;
}
