/**
 * What a caller may ask of a job (run_agent and `localagents run` share it),
 * and how those wishes meet the config: defaults fill gaps, and the config's
 * limits cannot be widened by an argument.
 */
import { realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import type { Config, FailoverMode, ModelMenuEntry, PermissionMode } from '../../config/schema.js';
import { BadArgumentError } from '../../errors.js';
import type { Isolation } from '../record/job-record.js';
import { sandboxPolicy, type SandboxPolicy, type SandboxRequest } from '../sandbox/policy.js';
import { worktreeSource } from '../git/worktree.js';
import type { VerifyPlan } from '../verify/verifier.js';
import { SERVER_SIDE_TOOLS_NOTE, withServerSideTools } from '../claude/server-side-tools.js';
import { agentLimits, type JobAgent } from './agent-job.js';
import type { FoundAgent } from '../../agents/definition.js';

export interface RunRequest {
  readonly task: string;
  /** An agent definition to run as (.claude/agents, ~/.claude/agents or models.yaml's agents:). */
  readonly agent?: string | undefined;
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
  /** Only ever stricter than models.yaml's defaults.sandbox. */
  readonly sandbox?: SandboxRequest | undefined;
  /** A command that must exit 0 before the job may end (see src/jobs/verify/). */
  readonly verify?: string | undefined;
  readonly verifyAttempts?: number | undefined;
}

export interface JobSettings {
  readonly cwd: string;
  readonly isolation: Isolation;
  readonly permissionMode: PermissionMode;
  readonly maxTurns: number;
  readonly timeoutS: number;
  /** defaults.outage_wait_s and probe_timeout_s: how long requests wait out the endpoint's outage, and each probe's bound. */
  readonly outageWaitS: number;
  readonly probeTimeoutS: number;
  /** defaults.failover and failover_after_s: whether, and after how long an outage, the job may move to another endpoint. */
  readonly failover: FailoverMode;
  readonly failoverAfterS: number;
  /** run_agent's endpoint argument: a job pinned to one endpoint never moves. */
  readonly pinnedEndpoint: string | undefined;
  /** Who pinned it, for the record's endpoint_reason: the endpoint argument, or the agent's models.yaml entry. */
  readonly pinnedBy: string | undefined;
  /** The menu entry's served_name, when set: its glob decides which served ids are the job's model. */
  readonly servedName: string | undefined;
  readonly allowedTools: readonly string[];
  readonly disallowedTools: readonly string[];
  readonly settingSources: Config['defaults']['setting_sources'];
  readonly systemPromptAppend: string;
  readonly dumpRequests: boolean;
  /** Names of ignored build caches an unchanged worktree may be deleted with (defaults.worktree_caches). */
  readonly worktreeCaches: readonly string[];
  /** defaults.claude_code_path, when models.yaml sets one. */
  readonly claudeCodePath: string | undefined;
  /** The menu entry's own `env`, applied over the endpoint's. */
  readonly menuEnv: Readonly<Record<string, string>> | undefined;
  readonly sandbox: SandboxPolicy;
  /** models.yaml and its sidecar, and every endpoint's api_key_env: what a sandboxed session may not read. */
  readonly secrets: { readonly files: readonly string[]; readonly variables: readonly string[] };
  readonly verify: VerifyPlan | undefined;
  /** The agent definition the session runs as, narrowed to the job's limits. */
  readonly agent: JobAgent | undefined;
  /** What of the definition was not applied, for the record. */
  readonly agentWarnings: readonly string[];
}

/** The agent a request names, and where its model came from. */
export interface RequestedAgent {
  readonly found: FoundAgent;
  readonly modelFrom: string;
  /** Set when the endpoint came from the agent's models.yaml entry rather than the caller. */
  readonly endpointFrom?: string | undefined;
}

/** How often the check may run: the caller's wish (default 3), never above defaults.max_verify_attempts. */
export function verifyPlan(request: RunRequest, d: Config['defaults']): VerifyPlan | undefined {
  if (request.verify === undefined) {
    if (request.verifyAttempts !== undefined) throw new BadArgumentError('verify_attempts', 'verify_attempts needs verify: the command whose attempts it counts');
    return undefined;
  }
  const attempts = request.verifyAttempts ?? Math.min(3, d.max_verify_attempts);
  if (!Number.isInteger(attempts) || attempts < 1 || attempts > d.max_verify_attempts) {
    throw new BadArgumentError('verify_attempts', `verify_attempts ${attempts} is outside 1..${d.max_verify_attempts} (defaults.max_verify_attempts in models.yaml)`, {
      hint: `Ask for at most ${d.max_verify_attempts}; only models.yaml can raise the limit.`,
    });
  }
  return { command: request.verify, attempts, timeoutS: d.verify_timeout_s };
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

/**
 * The job's settings: the caller's arguments, else the menu entry the model resolved
 * through (its permission_mode, max_turns, env), else defaults.
 */
export async function settleSettings(
  request: RunRequest,
  config: Config,
  defaultCwd: string,
  env: Readonly<Record<string, string | undefined>>,
  menuEntry?: ModelMenuEntry,
  agent?: RequestedAgent,
): Promise<JobSettings> {
  const d = config.defaults;
  const permissionMode = request.permissionMode ?? menuEntry?.permission_mode ?? d.permission_mode;
  // Also for a menu entry's: register_model writes the sidecar, and a tool call must not lift the gate.
  if (permissionMode === 'bypassPermissions' && !d.allow_bypass_permissions) {
    const from = request.permissionMode === undefined && menuEntry?.permission_mode !== undefined ? `models.${menuEntry.name}.permission_mode` : 'permission_mode';
    throw new BadArgumentError('permission_mode', `${from} "bypassPermissions" is refused: models.yaml does not set defaults.allow_bypass_permissions: true`, {
      hint: 'Use acceptEdits with allowed_tools, as the defaults do.',
      details: { allowed: ['default', 'acceptEdits', 'plan', 'dontAsk'] },
    });
  }
  // A tool the config forbids stays forbidden whatever the caller asks for.
  const disallowed = withServerSideTools(d.disallowed_tools);
  const plain = {
    allowedTools: (request.allowedTools ?? d.allowed_tools).filter((t) => !disallowed.includes(t)),
    disallowedTools: disallowed,
    permissionMode,
    maxTurns: request.maxTurns ?? menuEntry?.max_turns ?? d.max_turns,
  };
  const limits = agent === undefined ? { ...plain, agent: undefined, warnings: [] } : agentLimits(agent.found, agent.modelFrom, plain);
  const cwd = await resolveCwd(request.cwd ?? defaultCwd);
  const isolation = request.isolation ?? 'none';
  // Refuse a tree that cannot give a worktree now, as an error, rather than as a job that fails.
  if (isolation === 'worktree') await worktreeSource(cwd);
  return {
    cwd,
    isolation,
    permissionMode: limits.permissionMode,
    maxTurns: limits.maxTurns,
    timeoutS: request.timeoutS ?? d.timeout_s,
    outageWaitS: d.outage_wait_s,
    probeTimeoutS: d.probe_timeout_s,
    failover: d.failover,
    failoverAfterS: d.failover_after_s,
    pinnedEndpoint: request.endpoint,
    pinnedBy: request.endpoint === undefined ? undefined : (agent?.endpointFrom ?? 'the endpoint argument'),
    servedName: menuEntry?.served_name,
    allowedTools: limits.allowedTools,
    disallowedTools: limits.disallowedTools,
    settingSources: d.setting_sources,
    systemPromptAppend: [d.system_prompt_append, SERVER_SIDE_TOOLS_NOTE, request.systemPromptAppend].filter((t) => t !== undefined && t !== '').join('\n\n'),
    dumpRequests: d.dump_requests || env.LOCALAGENTS_DUMP_REQUESTS === '1',
    worktreeCaches: d.worktree_caches,
    claudeCodePath: d.claude_code_path,
    menuEnv: menuEntry?.env,
    sandbox: sandboxPolicy(d.sandbox, request.sandbox, env.HOME || homedir()),
    secrets: {
      files: [config.path, config.sidecarPath].filter((f) => f !== undefined),
      variables: config.endpoints.map((e) => e.api_key_env).filter((v) => v !== undefined),
    },
    verify: verifyPlan(request, d),
    agent: limits.agent,
    agentWarnings: limits.warnings,
  };
}
