/**
 * Finds models.yaml: `--config PATH`, then $LOCALAGENTS_CONFIG, then
 * ./models.yaml in the working directory, then
 * $XDG_CONFIG_HOME/localagents/models.yaml (default ~/.config/localagents).
 * Takes cwd, env and home as arguments; never reads process state itself.
 */
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { ConfigError, isErrno } from '../errors.js';

export const CONFIG_FILE_NAME = 'models.yaml';
export const SIDECAR_FILE_NAME = 'models.local.yaml';
export const CONFIG_ENV_VAR = 'LOCALAGENTS_CONFIG';

export interface LocateOptions {
  /** `--config PATH`; relative paths are taken from `cwd`. */
  readonly configPath?: string | undefined;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly homeDir: string;
}

export interface ConfigLocation {
  /** Absolute path of the hand-written file, or undefined when none exists. */
  readonly path: string | undefined;
  /** Absolute path of models.local.yaml: next to `path`, or in the user config dir when there is no `path`. */
  readonly sidecarPath: string;
  /** How messages name the two files: an explicit path as the user gave it, a found one in full. */
  readonly displayPath: string | undefined;
  readonly sidecarDisplayPath: string;
  /** Every place looked at, in order (explicit paths included). */
  readonly searched: readonly string[];
}

/** $XDG_CONFIG_HOME/localagents, or ~/.config/localagents. A relative XDG_CONFIG_HOME is ignored, as the spec says. */
export function userConfigDir(env: LocateOptions['env'], homeDir: string): string {
  const xdg = env['XDG_CONFIG_HOME'];
  const base = xdg !== undefined && xdg !== '' && isAbsolute(xdg) ? xdg : join(homeDir, '.config');
  return join(base, 'localagents');
}

export async function locateConfig(opts: LocateOptions): Promise<ConfigLocation> {
  const explicit = explicitPath(opts);
  if (explicit !== undefined) {
    const absolute = resolve(opts.cwd, explicit.path);
    const kind = await fileKind(absolute);
    if (kind !== 'file') {
      const what = kind === 'missing' ? 'does not exist' : 'is not a file';
      throw new ConfigError(explicit.path, `config file ${explicit.path} (from ${explicit.from}) ${what}`, {
        hint: `Fix ${explicit.from}, or leave it unset to use ./${CONFIG_FILE_NAME} or ~/.config/localagents/${CONFIG_FILE_NAME}.`,
      });
    }
    return found(absolute, explicit.path, [absolute]);
  }

  const candidates = [join(resolve(opts.cwd), CONFIG_FILE_NAME), join(userConfigDir(opts.env, opts.homeDir), CONFIG_FILE_NAME)];
  for (const [index, candidate] of candidates.entries()) {
    if ((await fileKind(candidate)) === 'file') return found(candidate, candidate, candidates.slice(0, index + 1));
  }
  // Nothing hand-written: the registry is whatever register_* put in the user config dir.
  const sidecarPath = join(userConfigDir(opts.env, opts.homeDir), SIDECAR_FILE_NAME);
  return { path: undefined, displayPath: undefined, sidecarPath, sidecarDisplayPath: sidecarPath, searched: candidates };
}

function explicitPath(opts: LocateOptions): { path: string; from: string } | undefined {
  if (opts.configPath !== undefined && opts.configPath !== '') return { path: opts.configPath, from: '--config' };
  const fromEnv = opts.env[CONFIG_ENV_VAR];
  if (fromEnv !== undefined && fromEnv !== '') return { path: fromEnv, from: CONFIG_ENV_VAR };
  return undefined;
}

function found(absolute: string, display: string, searched: string[]): ConfigLocation {
  return {
    path: absolute,
    displayPath: display,
    sidecarPath: join(dirname(absolute), SIDECAR_FILE_NAME),
    sidecarDisplayPath: join(dirname(display), SIDECAR_FILE_NAME),
    searched,
  };
}

async function fileKind(path: string): Promise<'file' | 'missing' | 'other'> {
  try {
    return (await stat(path)).isFile() ? 'file' : 'other';
  } catch (err) {
    if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return 'missing';
    throw new ConfigError(path, `cannot read config file ${path}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}
