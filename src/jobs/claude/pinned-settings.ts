/**
 * What no settings file may change in a delegated session: where its API
 * traffic goes, with which credentials and headers, for which model and
 * window. Claude Code applies the `env` of every settings file it reads over
 * the environment we give it, so a committed `.claude/settings.json` could
 * send the whole conversation to another host. Settings passed with
 * `--settings` (the "flag" layer) rank above user, project and local settings
 * (measured with Claude Code 2.1.332), so the session gets ours there.
 */
import { open, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Options } from '@anthropic-ai/claude-agent-sdk';
import { makeOwnedTempDir } from '../../coord/owned-files.js';
import { isInheritedKey } from './session-env.js';

/**
 * Cleared whenever localagents does not set them: each would move the API
 * target, add credentials or headers, or route traffic through a proxy.
 * An empty value reads as unset to Claude Code (measured for each one a test names).
 */
export const CLEARED_ENV = [
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_CUSTOM_HEADERS',
  'ANTHROPIC_UNIX_SOCKET',
  'ANTHROPIC_BETAS',
  'CLAUDE_CODE_EXTRA_BODY',
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
  'CLAUDE_CODE_USE_FOUNDRY',
  'CLAUDE_CODE_USE_GATEWAY',
  'CLAUDE_CODE_USE_MANTLE',
  'CLAUDE_CODE_USE_ANTHROPIC_AWS',
  'CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD',
  'CLAUDE_CODE_ENABLE_TELEMETRY',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
] as const;

/** A settings `env` key that steers the API target, credentials, proxies, TLS trust or telemetry export. */
const TARGET_KEY = /^(ANTHROPIC_|CLAUDE_CODE_USE_|CLAUDE_CODE_SKIP_|CLAUDE_CODE_API_|CLAUDE_CODE_EXTRA_|CLAUDE_CODE_CLIENT_|CLAUDE_CODE_MAX_(CONTEXT|OUTPUT)_TOKENS$|OTEL_|LOCALAGENTS_|NODE_EXTRA_CA_CERTS$|NODE_TLS_|SSL_CERT_)|PROXY/i;

/** Settings keys (not `env`) that choose credentials: apiKeyHelper runs a command and sends what it prints. */
const PINNED_KEYS = ['apiKeyHelper'] as const;

export interface SettingsOverride {
  /** The settings file that tried. */
  readonly file: string;
  /** `env.NAME` or a top-level key such as `apiKeyHelper`. */
  readonly keys: readonly string[];
}

/** Settings files are small; a bigger one is not read (it is reported, and the pin holds anyway). */
const MAX_SETTINGS_BYTES = 1024 * 1024;

async function readSmall(path: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return undefined; // absent: nothing to report
  }
  try {
    const buffer = Buffer.alloc(MAX_SETTINGS_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return bytesRead > MAX_SETTINGS_BYTES ? '' : buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** The files Claude Code reads for each setting source (project settings come from the session's cwd only). */
export function settingsFiles(workDir: string, sources: readonly string[], env: Readonly<Record<string, string>>): string[] {
  const files: string[] = [];
  const userDir = env.CLAUDE_CONFIG_DIR ?? (env.HOME === undefined ? undefined : join(env.HOME, '.claude'));
  if (sources.includes('user') && userDir !== undefined) files.push(join(userDir, 'settings.json'));
  if (sources.includes('project')) files.push(join(workDir, '.claude', 'settings.json'));
  if (sources.includes('local')) files.push(join(workDir, '.claude', 'settings.local.json'));
  return files;
}

/** A settings file's JSON object; undefined when it is absent, too big or not an object (Claude Code refuses those too). */
export async function readSettingsJson(file: string): Promise<Record<string, unknown> | undefined> {
  const text = await readSmall(file);
  if (text === undefined || text === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** What each settings file tried to set that the pin overrides. Unreadable JSON counts as nothing: Claude Code refuses it too. */
export async function findOverrides(files: readonly string[], pinnedEnv: Readonly<Record<string, string>>): Promise<SettingsOverride[]> {
  const found: SettingsOverride[] = [];
  for (const file of files) {
    const settings = await readSettingsJson(file);
    if (settings === undefined) continue;
    const keys: string[] = PINNED_KEYS.filter((k) => settings[k] !== undefined);
    if (typeof settings.env === 'object' && settings.env !== null) {
      for (const name of Object.keys(settings.env)) if (name in pinnedEnv || TARGET_KEY.test(name)) keys.push(`env.${name}`);
    }
    if (keys.length > 0) found.push({ file, keys });
  }
  return found;
}

/** The flag-layer env: every key localagents sets (endpoint env included), the cleared ones, and any target key a file tried. */
export function pinnedEnv(sessionEnv: Readonly<Record<string, string>>, tried: readonly SettingsOverride[] = []): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of CLEARED_ENV) env[key] = '';
  for (const o of tried) for (const k of o.keys) if (k.startsWith('env.')) env[k.slice(4)] = '';
  for (const [key, value] of Object.entries(sessionEnv)) if (!isInheritedKey(key)) env[key] = value;
  return env;
}

export type FlagSettings = Exclude<NonNullable<Options['settings']>, string>;

/** `deniedMcpServers`: localagents' own HTTP front doors, so a session cannot delegate through them. */
export function pinnedSettings(env: Readonly<Record<string, string>>, deniedMcpServers: ReadonlyArray<{ serverUrl: string }> = []): FlagSettings {
  // An empty apiKeyHelper stops a repository's helper command from running and supplying the key.
  return { env: { ...env }, apiKeyHelper: '', ...(deniedMcpServers.length > 0 ? { deniedMcpServers: [...deniedMcpServers] } : {}) };
}

export function overrideWarning(o: SettingsOverride): string {
  return `${o.file} tried to set ${o.keys.join(', ')}; localagents pinned them to its own values (a settings file may not redirect the session, its credentials, model or window)`;
}

export interface SettingsFile {
  readonly path: string;
  remove(): Promise<void>;
}

/**
 * A file, not inline JSON: inline settings go on Claude Code's command line,
 * which every local user can read, and the shim URL in them is the job's secret.
 */
export async function writeSettingsFile(settings: FlagSettings): Promise<SettingsFile> {
  const dir = await makeOwnedTempDir('localagents-settings');
  const path = join(dir, 'settings.json');
  await writeFile(path, JSON.stringify(settings), { mode: 0o600 });
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}
