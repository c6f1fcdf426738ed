/**
 * The environment of a delegated Claude Code session. The Agent SDK replaces
 * the child's environment with what we pass, so this is the whole of it: a
 * short allowlist from ours, then the keys that point Claude Code at the shim.
 */

/** Inherited as is: what a shell, git and Claude Code itself need to work. */
const INHERITED = new Set(['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'LANGUAGE', 'TMPDIR', 'TZ', 'CLAUDE_CONFIG_DIR']);
const INHERITED_PREFIXES = ['LC_', 'XDG_', 'GIT_'];

/** Claude Code's auto-compact threshold is window − min(max_output, 20000) − 13000 (measured, docs/claude-code-wire.md §3). */
export function compactThreshold(window: number, maxOutput: number): number {
  return window - Math.min(maxOutput, 20_000) - 13_000;
}

/**
 * The output budget to pair with CLAUDE_CODE_MAX_CONTEXT_TOKENS. Without it Claude
 * Code keeps max_tokens 32000 and a 32k window gets a threshold of −232: compaction
 * thrash and an error result. Below 128k use max(8192, window/8), then shrink until
 * the threshold keeps a quarter of the window for the conversation.
 */
export function maxOutputTokensFor(window: number): number {
  let out = window < 131_072 ? Math.max(8192, Math.floor(window / 8)) : 32_000;
  if (compactThreshold(window, out) < window / 4) out = Math.max(1024, Math.floor(window - 13_000 - window / 4));
  return out;
}

export interface SessionEnvInput {
  /** The job's shim URL, http://127.0.0.1:PORT/job/<token>. */
  readonly baseUrl: string;
  readonly servedModel: string;
  /** Per-request window of the backend, when known. */
  readonly context: number | undefined;
  /** The endpoint's own `env` from models.yaml, applied last. */
  readonly endpointEnv: Readonly<Record<string, string>> | undefined;
  /** The menu entry's `env`, applied after the endpoint's: the entry is the more specific setting. */
  readonly menuEnv?: Readonly<Record<string, string>> | undefined;
  readonly parentEnv: Readonly<Record<string, string | undefined>>;
}

/** True for what the session inherits from our own environment (not something localagents decides). */
export function isInheritedKey(key: string): boolean {
  return INHERITED.has(key) || INHERITED_PREFIXES.some((p) => key.startsWith(p));
}

export function buildSessionEnv(input: SessionEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(input.parentEnv)) {
    if (value !== undefined && isInheritedKey(key)) env[key] = value;
  }
  Object.assign(env, {
    ANTHROPIC_BASE_URL: input.baseUrl,
    // The secret is the token in the URL; the key only has to be present for Claude Code to start.
    ANTHROPIC_API_KEY: 'localagents',
    ANTHROPIC_MODEL: input.servedModel,
    ANTHROPIC_DEFAULT_OPUS_MODEL: input.servedModel,
    ANTHROPIC_DEFAULT_SONNET_MODEL: input.servedModel,
    ANTHROPIC_DEFAULT_HAIKU_MODEL: input.servedModel,
    ANTHROPIC_SMALL_FAST_MODEL: input.servedModel,
    // Byte-stable prompt prefix across jobs: no per-prompt billing hash, no per-repo memory path (7.7% → 80.4% reuse).
    CLAUDE_CODE_ATTRIBUTION_HEADER: '0',
    CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1',
    // No DNS lookups of api.anthropic.com, no title requests, no telemetry: everything stays on loopback.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    NO_PROXY: '127.0.0.1,localhost',
  });
  if (input.context !== undefined) {
    env.CLAUDE_CODE_MAX_CONTEXT_TOKENS = String(input.context);
    env.CLAUDE_CODE_MAX_OUTPUT_TOKENS = String(maxOutputTokensFor(input.context));
  }
  return { ...env, ...input.endpointEnv, ...input.menuEnv };
}

/**
 * A warning when the session's final env (after the endpoint's own `env`) would
 * make Claude Code compact constantly: its threshold below a quarter of the
 * window (e.g. CLAUDE_CODE_MAX_OUTPUT_TOKENS=32000 with a 32k window gives −232).
 * Only when the endpoint's env set one of the two: the user can change that; a
 * small window with localagents' own pick is the probe's "< 128k" warning instead.
 */
export function compactionWarning(env: Readonly<Record<string, string>>, endpointEnv: Readonly<Record<string, string>> | undefined): string | undefined {
  if (endpointEnv?.CLAUDE_CODE_MAX_OUTPUT_TOKENS === undefined && endpointEnv?.CLAUDE_CODE_MAX_CONTEXT_TOKENS === undefined) return undefined;
  const window = Number(env.CLAUDE_CODE_MAX_CONTEXT_TOKENS);
  const output = Number(env.CLAUDE_CODE_MAX_OUTPUT_TOKENS);
  if (!Number.isFinite(window) || !Number.isFinite(output) || window <= 0 || output <= 0) return undefined;
  const threshold = compactThreshold(window, output);
  if (threshold >= window / 4) return undefined;
  return (
    `CLAUDE_CODE_MAX_OUTPUT_TOKENS=${output} with a ${window}-token window puts Claude Code's auto-compact threshold at ${threshold} tokens: ` +
    `expect "Autocompact is thrashing". Remove it from the endpoint's env (localagents picks ${maxOutputTokensFor(window)}) or lower it.`
  );
}
