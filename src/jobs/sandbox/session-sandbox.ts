/**
 * The `sandbox` and `permissions` blocks a sandboxed job pins in Claude Code's
 * flag settings layer (the `--settings` file), built from the job's policy and
 * paths. Claude Code 2.1.332, measured (docs/sandbox.md):
 *   - `allowUnsandboxedCommands: false` in the flag layer makes it ignore a
 *     repository's `sandbox.enabled: false`, its `allowWrite`, `allowRead`,
 *     `excludedCommands` and allowed domains; the model's dangerouslyDisableSandbox
 *     is ignored too. `excludedCommands` from the flag layer still run outside.
 *   - The sandbox binds Bash only. The file tools (Read, Write, Edit) go through
 *     permissions: `blockWritesOutsideWorkingDirectories` keeps their writes in
 *     the tree (no allow rule lifts it), Read deny rules hide the credentials.
 *   - Bash gets its own network namespace: loopback (the shim, localagents' HTTP
 *     front doors, model servers) is unreachable; other hosts go through Claude
 *     Code's proxy, which with `strictAllowlist` refuses every host not listed.
 *     Claude Code's own process is not sandboxed and still reaches the shim.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { privateDir } from '../../coord/private-files.js';
import { usageIndexDir } from '../caller-log.js';
import { readSettingsJson, type FlagSettings } from '../pinned-settings.js';
import { CREDENTIAL_PATHS, SECRET_NAME, SECRET_VARIABLES } from './boundary.js';
import { gitWrites, inside } from './git-writes.js';
import { expandHome, type SandboxPolicy } from './policy.js';

export interface SandboxJobInput {
  readonly policy: SandboxPolicy;
  /** Where the session runs: the worktree (or the cwd for isolation none). */
  readonly workDir: string;
  /** The whole tree the job owns (a worktree job's cwd may be a folder inside it). */
  readonly tree: string;
  readonly home: string;
  /** The session's environment: secret-looking names in it are unset for Bash. */
  readonly sessionEnv: Readonly<Record<string, string>>;
  readonly stateDir: string;
  /** models.yaml and its sidecar: they hold keys. */
  readonly configFiles: readonly string[];
  /** Every endpoint's api_key_env. */
  readonly keyVariables: readonly string[];
  /** The repository's own settings files the session loads (project, local). */
  readonly repoSettings: readonly string[];
}

export interface PreparedSandbox {
  /** Merged into the pinned flag settings. */
  readonly settings: Pick<FlagSettings, 'sandbox' | 'permissions'>;
  /** Added to the session's environment: Claude Code's temp folder, private to this job. */
  readonly env: Record<string, string>;
  readonly tempDir: string;
  /** Removes the private temp folder (nothing of the job's work lives there). */
  dispose(): Promise<void>;
}

/**
 * Paths hidden from Bash and the file tools: the credential list; models.yaml and its sidecar wherever they are
 * (endpoint keys); Claude Code's login in CLAUDE_CONFIG_DIR; every entry of the state directory but worktrees/
 * (other jobs' records, transcripts and request logs, the HTTP front doors' token files).
 */
async function hiddenPaths(input: SandboxJobInput): Promise<string[]> {
  // The usage index's folder appears with the first job's caller-bytes note: made up front, so the list (and with
  // it the session's environment block, which names it) is the same for every job and the prompt cache holds.
  await privateDir(usageIndexDir(input.stateDir)).catch(() => undefined);
  const names = (await readdir(input.stateDir).catch(() => [] as string[])).filter((name) => name !== 'worktrees').sort();
  const state = names.map((name) => join(input.stateDir, name));
  const claudeDir = input.sessionEnv.CLAUDE_CONFIG_DIR;
  const claude = claudeDir === undefined ? [] : [join(claudeDir, '.credentials.json'), join(claudeDir, '.claude.json')];
  return [...new Set([...CREDENTIAL_PATHS.map((c) => join(input.home, c.path)), ...input.configFiles, ...claude, ...state])];
}

/**
 * Folders a repository's settings make working directories (permissions.additionalDirectories): measured with
 * 2.1.332, the file tools then write there despite blockWritesOutsideWorkingDirectories. An Edit deny rule from
 * the flag layer wins over that, so each one outside the tree gets one.
 */
async function repoWorkingDirectories(input: SandboxJobInput): Promise<string[]> {
  const found: string[] = [];
  for (const file of input.repoSettings) {
    const permissions = (await readSettingsJson(file))?.permissions;
    const dirs = typeof permissions === 'object' && permissions !== null ? (permissions as { additionalDirectories?: unknown }).additionalDirectories : undefined;
    if (!Array.isArray(dirs)) continue;
    for (const dir of dirs) {
      if (typeof dir !== 'string' || dir === '') continue;
      const path = resolve(input.workDir, expandHome(dir, input.home));
      if (!inside(input.tree, path)) found.push(path);
    }
  }
  return [...new Set(found)];
}

function hiddenVariables(input: SandboxJobInput): string[] {
  const named = Object.keys(input.sessionEnv).filter((k) => SECRET_NAME.test(k));
  return [...new Set([...SECRET_VARIABLES.map((v) => v.name), ...input.keyVariables, ...named])];
}

export async function prepareSandbox(input: SandboxJobInput): Promise<PreparedSandbox> {
  const { policy } = input;
  const tempDir = await mkdtemp(join(tmpdir(), 'localagents-job-'));
  const git = await gitWrites(input.workDir);
  const hidden = await hiddenPaths(input);
  const unwritable = await repoWorkingDirectories(input);
  const settings: PreparedSandbox['settings'] = {
    sandbox: {
      enabled: true,
      failIfUnavailable: true,
      allowUnsandboxedCommands: false,
      ...(policy.unsandboxedCommands.length > 0 ? { excludedCommands: [...policy.unsandboxedCommands] } : {}),
      filesystem: {
        allowWrite: [...new Set([input.tree, ...git.allowWrite, tempDir, ...policy.allowWrite])],
        denyWrite: git.denyWrite,
        denyRead: hidden,
        ...(policy.allowRead.length > 0 ? { allowRead: [...policy.allowRead] } : {}),
      },
      network: { allowedDomains: [...policy.allowedDomains], strictAllowlist: true },
      credentials: { envVars: hiddenVariables(input).map((name) => ({ name, mode: 'deny' as const })) },
    },
    permissions: {
      blockWritesOutsideWorkingDirectories: true,
      ...(git.gitEntry === undefined ? {} : { workingDirectoriesExclude: [git.gitEntry] }),
      // `//` starts an absolute path in a permission rule; the folder and all below it.
      deny: [...hidden.flatMap((p) => [`Read(/${p})`, `Read(/${p}/**)`]), ...unwritable.flatMap((p) => [`Edit(/${p})`, `Edit(/${p}/**)`])],
    },
  };
  return { settings, env: { CLAUDE_CODE_TMPDIR: tempDir }, tempDir, dispose: () => rm(tempDir, { recursive: true, force: true }) };
}
