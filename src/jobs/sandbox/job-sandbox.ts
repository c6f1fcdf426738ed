/**
 * One job's sandbox from start to end, for the runner: checks it can run,
 * prepares the settings and the private temp folder, watches the session for
 * refusals, and cleans up. A job whose sandbox cannot run does not start.
 */
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { homedir } from 'node:os';
import { settingsFiles } from '../claude/pinned-settings.js';
import type { Config } from '../../config/schema.js';
import type { SandboxPolicy } from './policy.js';
import { problemText, sandboxProblem } from './preflight.js';
import { sandboxRecord, type SandboxRecord } from './record.js';
import { newTally, watchRefusals } from './refusals.js';
import { prepareSandbox, type PreparedSandbox } from './session-sandbox.js';

/** What of a job's settings its sandbox reads (the job's JobSettings has these). */
export interface SandboxSettings {
  readonly sandbox: SandboxPolicy;
  readonly secrets: { readonly files: readonly string[]; readonly variables: readonly string[] };
  readonly settingSources: Config['defaults']['setting_sources'];
}

export interface JobSandboxInput {
  readonly settings: SandboxSettings;
  readonly workDir: string;
  /** The whole tree the job owns: its worktree, or the cwd for isolation none. */
  readonly tree: string;
  /** The session's environment so far; the sandbox's own variables are added to it. */
  readonly sessionEnv: Record<string, string>;
  readonly stateDir: string;
  readonly claudePath: string | undefined;
}

export interface JobSandbox {
  /** Why the sandbox cannot run (the job then fails before its session starts); undefined when it can, or is off. */
  readonly problem: string | undefined;
  /** What goes into the pinned flag settings (nothing when the sandbox is off). */
  readonly settings: PreparedSandbox['settings'] | Record<string, never>;
  /** The session's private temp folder (CLAUDE_CODE_TMPDIR); undefined when the sandbox is off. */
  readonly tempDir: string | undefined;
  /** Transcript lines for the refusals in one message; counts them for the record. */
  watch(message: SDKMessage): string[];
  record(): SandboxRecord;
  dispose(): Promise<void>;
}

export async function openJobSandbox(input: JobSandboxInput): Promise<JobSandbox> {
  const policy = input.settings.sandbox;
  const tally = newTally();
  const off: JobSandbox = {
    problem: undefined,
    settings: {},
    tempDir: undefined,
    watch: () => [],
    record: () => sandboxRecord(policy),
    dispose: () => Promise.resolve(),
  };
  if (!policy.enabled) return off;
  const problem = await sandboxProblem({ platform: process.platform, path: input.sessionEnv.PATH, claudePath: input.claudePath, env: input.sessionEnv });
  if (problem !== undefined) return { ...off, problem: problemText(problem) };
  const prepared = await prepareSandbox({
    policy,
    workDir: input.workDir,
    tree: input.tree,
    home: input.sessionEnv.HOME || homedir(),
    sessionEnv: input.sessionEnv,
    stateDir: input.stateDir,
    configFiles: input.settings.secrets.files,
    keyVariables: input.settings.secrets.variables,
    repoSettings: settingsFiles(input.workDir, input.settings.settingSources.filter((s) => s !== 'user'), input.sessionEnv),
  });
  Object.assign(input.sessionEnv, prepared.env);
  return {
    problem: undefined,
    settings: prepared.settings,
    tempDir: prepared.tempDir,
    watch: (message) => watchRefusals(tally, message),
    record: () => sandboxRecord(policy, tally),
    dispose: () => prepared.dispose(),
  };
}
