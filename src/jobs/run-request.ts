/**
 * What a caller may ask of a job (run_agent and `localagents run` share it),
 * and how those wishes meet the config: defaults fill gaps, and the config's
 * limits cannot be widened by an argument.
 */
import { realpath, stat } from 'node:fs/promises';
import type { Config, PermissionMode } from '../config/schema.js';
import { BadArgumentError } from '../errors.js';
import type { Isolation } from './job-record.js';
import { worktreeSource } from './worktree.js';

export interface RunRequest {
  readonly task: string;
  readonly model?: string | undefined;
  readonly endpoint?: string | undefined;
  readonly cwd?: string | undefined;
  readonly isolation?: Isolation | undefined;
  readonly permissionMode?: PermissionMode | undefined;
  readonly maxTurns?: number | undefined;
  readonly allowedTools?: readonly string[] | undefined;
  readonly systemPromptAppend?: string | undefined;
  readonly resumeJob?: string | undefined;
  readonly timeoutS?: number | undefined;
}

export interface JobSettings {
  readonly cwd: string;
  readonly isolation: Isolation;
  readonly permissionMode: PermissionMode;
  readonly maxTurns: number;
  readonly timeoutS: number;
  readonly allowedTools: readonly string[];
  readonly disallowedTools: readonly string[];
  readonly settingSources: Config['defaults']['setting_sources'];
  readonly systemPromptAppend: string;
  readonly dumpRequests: boolean;
  /** Names of ignored build caches an unchanged worktree may be deleted with (defaults.worktree_caches). */
  readonly worktreeCaches: readonly string[];
}

/** A real directory, symlinks resolved: the session and the worktree both see the same path. */
export async function resolveCwd(cwd: string): Promise<string> {
  let info;
  try {
    info = await stat(cwd);
  } catch {
    throw new BadArgumentError('cwd', `cwd "${cwd}" does not exist`, { hint: 'Pass an existing directory (an absolute path).' });
  }
  if (!info.isDirectory()) throw new BadArgumentError('cwd', `cwd "${cwd}" is not a directory`);
  return realpath(cwd);
}

export async function settleSettings(request: RunRequest, config: Config, defaultCwd: string, env: Readonly<Record<string, string | undefined>>): Promise<JobSettings> {
  const d = config.defaults;
  const permissionMode = request.permissionMode ?? d.permission_mode;
  if (permissionMode === 'bypassPermissions' && !d.allow_bypass_permissions) {
    throw new BadArgumentError('permission_mode', 'permission_mode "bypassPermissions" is refused: models.yaml does not set defaults.allow_bypass_permissions: true', {
      hint: 'Use acceptEdits with allowed_tools, as the defaults do.',
      details: { allowed: ['default', 'acceptEdits', 'plan', 'dontAsk'] },
    });
  }
  // A tool the config forbids stays forbidden whatever the caller asks for.
  const disallowed = d.disallowed_tools;
  const allowedTools = (request.allowedTools ?? d.allowed_tools).filter((t) => !disallowed.includes(t));
  const cwd = await resolveCwd(request.cwd ?? defaultCwd);
  const isolation = request.isolation ?? 'none';
  // Refuse a tree that cannot give a worktree now, as an error, rather than as a job that fails.
  if (isolation === 'worktree') await worktreeSource(cwd);
  return {
    cwd,
    isolation,
    permissionMode,
    maxTurns: request.maxTurns ?? d.max_turns,
    timeoutS: request.timeoutS ?? d.timeout_s,
    allowedTools,
    disallowedTools: disallowed,
    settingSources: d.setting_sources,
    systemPromptAppend: request.systemPromptAppend ? `${d.system_prompt_append}\n\n${request.systemPromptAppend}` : d.system_prompt_append,
    dumpRequests: d.dump_requests || env.LOCALAGENTS_DUMP_REQUESTS === '1',
    worktreeCaches: d.worktree_caches,
  };
}
