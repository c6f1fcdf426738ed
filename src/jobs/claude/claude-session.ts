/**
 * Runs one headless Claude Code session through the Agent SDK's query(),
 * with the bundled `claude` binary. Spawns it in its own process group so a
 * cancel also ends the shells and tools it started.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { AgentDefinition, Options, SDKMessage, SpawnOptions, SpawnedProcess } from '@anthropic-ai/claude-agent-sdk';
import { signalGroup, stopGroup } from '../../coord/process-group.js';

export interface SessionRequest {
  readonly prompt: string;
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly permissionMode: NonNullable<Options['permissionMode']>;
  readonly allowedTools: readonly string[];
  readonly disallowedTools: readonly string[];
  readonly settingSources: NonNullable<Options['settingSources']>;
  /** Flag-layer settings file: ranks above every settings file the sources load (the job runner always passes one). */
  readonly settingsFile?: string | undefined;
  readonly systemPromptAppend: string;
  readonly maxTurns: number;
  readonly resume: string | undefined;
  readonly abortController: AbortController;
  readonly onMessage: (message: SDKMessage) => void;
  readonly onStderr: (text: string) => void;
  readonly onSpawn?: (pid: number) => void;
  /** In-process hook callbacks (the verify command's Stop hook). */
  readonly hooks?: Options['hooks'];
  /**
   * The agent the main thread runs as, passed inline (like --agents): it ranks above a same-named file in the
   * project's .claude/agents, so the session runs the definition localagents checked, not one it would load itself.
   */
  readonly agent?: { readonly name: string; readonly definition: AgentDefinition } | undefined;
  /** Overrides the bundled binary (tests of a crashing session). */
  readonly executable?: string | undefined;
}

/** After the SDK's own grace period, anything left in the group gets this long before SIGKILL. */
const KILL_GRACE_MS = 1500;

/**
 * Stops the session's process group if this server dies without cleaning up
 * (SIGKILL, OOM kill). Node has no PR_SET_PDEATHSIG, so a tiny shell in its own
 * group blocks reading a pipe from us: the kernel closes the pipe when we die,
 * and the shell then ends the group. Without it an orphaned Claude Code goes on
 * for minutes (its tool call runs on, then up to ~3 min of retries against the
 * dead shim), beside a resumed session in the same tree.
 */
function startOrphanGuard(pgid: number): ChildProcess {
  const script = 'read -r _; kill -TERM -"$1" 2>/dev/null; sleep 2; kill -KILL -"$1" 2>/dev/null';
  const guard = spawn('/bin/sh', ['-c', script, 'localagents-orphan-guard', String(pgid)], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  guard.on('error', () => undefined); // no /bin/sh: the session still runs, only unguarded
  guard.stdin?.on('error', () => undefined);
  return guard;
}

function spawnInGroup(options: SpawnOptions, request: SessionRequest): SpawnedProcess {
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true, // own process group: killing -pid reaches Bash tool children too
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => request.onStderr(text));
  if (child.pid !== undefined) request.onSpawn?.(child.pid);
  const guard = child.pid === undefined ? undefined : startOrphanGuard(child.pid);
  const killGroup = (signal: NodeJS.Signals): void => {
    if (child.pid !== undefined) signalGroup(child.pid, signal);
  };
  const hardStop = (): void => {
    if (child.pid !== undefined) stopGroup(child.pid, KILL_GRACE_MS);
  };
  options.signal.addEventListener('abort', hardStop, { once: true });
  request.abortController.signal.addEventListener('abort', () => setTimeout(hardStop, 2500).unref(), { once: true });
  // When claude itself exits, its tool children must not outlive it.
  child.on('exit', () => {
    killGroup('SIGKILL');
    guard?.kill('SIGKILL');
  });
  return child;
}

/** Resolves when the session ends; rejects with the SDK's error (after an error result, or on a crash). */
export async function runClaudeSession(request: SessionRequest): Promise<void> {
  const options: Options = {
    cwd: request.cwd,
    env: request.env,
    permissionMode: request.permissionMode,
    allowedTools: [...request.allowedTools],
    disallowedTools: [...request.disallowedTools],
    settingSources: request.settingSources,
    ...(request.settingsFile ? { settings: request.settingsFile } : {}),
    systemPrompt: { type: 'preset', preset: 'claude_code', append: request.systemPromptAppend },
    maxTurns: request.maxTurns,
    abortController: request.abortController,
    spawnClaudeCodeProcess: (spawnOptions) => spawnInGroup(spawnOptions, request),
    ...(request.resume ? { resume: request.resume } : {}),
    ...(request.hooks ? { hooks: request.hooks } : {}),
    ...(request.agent ? { agent: request.agent.name, agents: { [request.agent.name]: request.agent.definition } } : {}),
    ...(request.executable ? { pathToClaudeCodeExecutable: request.executable } : {}),
  };
  // Loaded with the first session, not at start: loading the SDK takes about twice a bare Node start, which an MCP
  // server that lists tools or answers status calls, or a command that runs no session, need not pay.
  const { query } = await import('@anthropic-ai/claude-agent-sdk');
  for await (const message of query({ prompt: request.prompt, options })) {
    request.onMessage(message);
  }
}
