/**
 * Loads the registry: the hand-written models.yaml plus the models.local.yaml
 * sidecar merged on top (an entry replaces the same-named entry; defaults keys
 * override one by one), then resolves api_key_env from the environment.
 * Reads the files on every call, so edits take effect without a restart.
 * Never writes anything.
 */
import { homedir } from 'node:os';
import { closestMatch } from './closest-match.js';
import { configErrorFromIssues, formatKeyPath, type ConfigIssue, type KeyPath } from './format-issues.js';
import { locateConfig, type LocateOptions } from './locate.js';
import { defaultsSchema, type Config, type Endpoint, type EndpointConfig, type ModelEntry, type ModelMenuEntry } from './schema.js';
import { validateConfigText, type ValidatedFile } from './validate-file.js';
import { ConfigError, isErrno } from '../errors.js';
import { learnSecret } from '../secrets/redact.js';
import { readRegularFile } from '../coord/regular-file.js';
import { errorMessage } from '../errors.js';
import { pathError } from '../path-errors.js';

export interface LoadConfigOptions {
  /** `--config PATH`. */
  readonly configPath?: string | undefined;
  /** The working directory `./models.yaml` is looked for in (the caller passes process.cwd()). */
  readonly cwd: string;
  /** Environment for LOCALAGENTS_CONFIG, XDG_CONFIG_HOME and api_key_env. */
  readonly env: LocateOptions['env'];
  /** Defaults to os.homedir(). */
  readonly homeDir?: string | undefined;
}

interface Sourced<T> {
  readonly value: T;
  readonly from: ValidatedFile;
}

/** Why an unset api_key_env is a warning, not an error: one missing key must not hide every other endpoint. */
const ENV_HINT = 'set it in the environment localagents starts with (for Claude Code: the "env" of the MCP server entry), or use api_key';

export async function loadConfig(opts: LoadConfigOptions): Promise<Config> {
  const location = await locateConfig({ ...opts, homeDir: opts.homeDir ?? homedir() });
  const files: ValidatedFile[] = [];
  if (location.path !== undefined) {
    const text = await readConfigText(location.path, location.displayPath ?? location.path, true);
    files.push(validateConfigText(location.displayPath ?? location.path, text ?? ''));
  }
  if (location.sidecarPath !== location.path) {
    const text = await readConfigText(location.sidecarPath, location.sidecarDisplayPath, false);
    if (text !== undefined) files.push(validateConfigText(location.sidecarDisplayPath, text));
  }
  const fileIssues = files.flatMap((f) => f.issues);
  if (fileIssues.length > 0) throw configErrorFromIssues(fileIssues);

  // Later files win: the sidecar's entries replace the hand-written ones of the same name.
  const endpoints = new Map<string, Sourced<EndpointConfig>>();
  const models = new Map<string, Sourced<ModelEntry>>();
  let writtenDefaults: Record<string, unknown> = {};
  for (const file of files) {
    for (const [name, value] of Object.entries(file.config?.endpoints ?? {})) endpoints.set(name, { value, from: file });
    for (const [name, value] of Object.entries(file.config?.models ?? {})) models.set(name, { value, from: file });
    writtenDefaults = { ...writtenDefaults, ...file.writtenDefaults };
  }

  const issues: ConfigIssue[] = [];
  const at = (from: ValidatedFile, path: KeyPath, message: string): void => {
    issues.push({ file: from.source.file, line: from.source.lineAt(path), key: formatKeyPath(path), message });
  };
  for (const [index, file] of files.entries()) {
    const hand = index === 0 && location.path !== undefined;
    for (const [name, value] of Object.entries(file.config?.agents ?? {})) {
      if (!hand) at(file, ['agents', name], 'agents: belongs in models.yaml, not in the sidecar that tool calls write; move it there');
      else if (value.endpoint !== undefined && !endpoints.has(value.endpoint)) at(file, ['agents', name, 'endpoint'], unknownEndpointMessage(value.endpoint, [...endpoints.keys()]));
    }
  }
  for (const [name, { value, from }] of models) {
    if (value.endpoint !== undefined && !endpoints.has(value.endpoint)) {
      at(from, ['models', name, 'endpoint'], unknownEndpointMessage(value.endpoint, [...endpoints.keys()]));
    }
  }
  const resolved: Endpoint[] = [];
  const warnings: string[] = [];
  for (const [name, { value, from }] of endpoints) {
    let apiKey = value.api_key;
    let apiKeyProblem: string | undefined;
    if (value.api_key_env !== undefined) {
      apiKey = opts.env[value.api_key_env] || undefined;
      if (apiKey === undefined) {
        const state = opts.env[value.api_key_env] === undefined ? 'is not set' : 'is empty';
        const path: KeyPath = ['endpoints', name, 'api_key_env'];
        apiKeyProblem = `${from.source.file}:${from.source.lineAt(path)}: ${formatKeyPath(path)}: environment variable ${value.api_key_env} ${state}; endpoint ${name} reads its API key from it — ${ENV_HINT}`;
        warnings.push(apiKeyProblem);
      }
    }
    // From here on every text that leaves the process has this key blanked out.
    learnSecret(apiKey);
    resolved.push({ ...value, name, apiKey, apiKeyProblem });
  }
  if (issues.length > 0) throw configErrorFromIssues(issues);

  const menu: ModelMenuEntry[] = [...models].map(([name, { value }]) => ({ ...value, name }));
  return {
    path: location.path,
    sidecarPath: location.sidecarPath,
    endpoints: resolved,
    models: menu,
    agents: location.path === undefined ? [] : Object.entries(files[0]?.config?.agents ?? {}).map(([name, value]) => ({ ...value, name })),
    // Each key was checked on its own in its file; together they still form a valid defaults block.
    defaults: defaultsSchema.parse(writtenDefaults),
    searched: location.searched,
    warnings,
    handWrittenEndpoints: (location.path !== undefined ? files[0]?.config?.endpoints : undefined) ?? {},
  };
}

function unknownEndpointMessage(wanted: string, known: readonly string[]): string {
  const guess = closestMatch(wanted, known);
  const tail =
    guess !== undefined ? ` — did you mean ${guess}?` : known.length === 0 ? '; no endpoints are defined' : `; defined endpoints: ${known.join(', ')}`;
  return `endpoint ${wanted} is not defined under endpoints${tail}`;
}

/** The file's text; undefined when an optional file is absent. */
async function readConfigText(path: string, display: string, required: boolean): Promise<string | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(path, { follow: true });
  } catch (err) {
    if (!required && isErrno(err, 'ENOENT')) return undefined;
    const worded = pathError(err);
    throw new ConfigError(display, worded?.message ?? `cannot read ${display}: ${errorMessage(err)}`, { hint: worded?.hint, cause: err });
  }
  return decodeUtf8(bytes, display);
}

/** Strict: a byte that is not UTF-8 would otherwise turn into U+FFFD silently, e.g. inside a note or a URL. */
function decodeUtf8(bytes: Buffer, display: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const lenient = bytes.toString('utf8');
    const bad = lenient.indexOf('\ufffd');
    const line = lenient.slice(0, Math.max(0, bad)).split('\n').length;
    throw new ConfigError(display, `${display}:${line}: the file is not valid UTF-8 (a byte sequence on this line is not text); save it as UTF-8`, { line });
  }
}
