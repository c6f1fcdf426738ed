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
 *   - `filesystem.allowRead` re-opens a path inside a `denyRead` folder for Bash:
 *     with the state directory denied and a worktree job's tree allowed, Bash
 *     sees `<state>/worktrees/<tree>` and nothing else there, also nothing made
 *     after the job started. The file tools have no such exception.
 *   - Bash gets its own network namespace: loopback (the shim, localagents' HTTP
 *     front doors, model servers) is unreachable; other hosts go through Claude
 *     Code's proxy, which with `strictAllowlist` refuses every host not listed.
 *     Claude Code's own process is not sandboxed and still reaches the shim.
 */
import { rm } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { makeOwnedTempDir } from '../../coord/owned-files.js';
import { readSettingsJson, type FlagSettings } from '../claude/pinned-settings.js';
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
 * Paths hidden from Bash and the file tools besides the state directory: the credential list; models.yaml and its
 * sidecar wherever they are (endpoint keys); Claude Code's login in CLAUDE_CONFIG_DIR.
 */
function hiddenPaths(input: SandboxJobInput): string[] {
  const claudeDir = input.sessionEnv.CLAUDE_CONFIG_DIR;
  const claude = claudeDir === undefined ? [] : [join(claudeDir, '.credentials.json'), join(claudeDir, '.claude.json')];
  return [...new Set([...CREDENTIAL_PATHS.map((c) => join(input.home, c.path)), ...input.configFiles, ...claude])];
}

/**
 * One character class: every character but `c` in either case, and but `/`. Measured with 2.1.332, Read rules match
 * paths case-insensitively (`Read(//…/EARLY.TOKEN)` refused `early.token`) and `[!c]`, `[^c]` are a literal `!`
 * or `^` (gitignore rules through the `ignore` package, which also disables a leading `!`), so "not c" is spelled
 * as ranges around it, from U+0001 to U+FFFF. `]` and `\` never end a range (they would end or escape the class),
 * so where the kept name has `[`, `\`, `]` or `^` a name with `]` or `\` there is not covered.
 */
function notChar(c: string): string {
  const skip = [...new Set([c.toLowerCase(), c.toUpperCase(), '/'].map((x) => x.charCodeAt(0)))].sort((a, b) => a - b);
  const edge = (code: number): boolean => code === 0x5c || code === 0x5d;
  const ranges: string[] = [];
  let from = 1;
  for (const end of [...skip.map((code) => code - 1), 0xffff]) {
    let [start, last] = [from, end];
    while (edge(start)) start++;
    while (edge(last)) last--;
    if (last >= start) ranges.push(`${String.fromCharCode(start)}-${String.fromCharCode(last)}`);
    from = end + 2;
  }
  return `[${ranges.join('')}]`;
}

/**
 * Read rule patterns for every entry of `dir` but the one named `keep` (and what is below them): the names that
 * differ from `keep` at its i-th character, the longer ones that start with it, and its shorter beginnings. A
 * rule for `dir/*` would also cover `keep`'s contents (a rule on a folder covers what is in it), and deny rules
 * win over allow rules, so the file tools can only be kept out of the rest by naming the rest.
 */
function allBut(dir: string, keep: string): string[] {
  const chars = [...keep];
  const prefix = (n: number): string => `${literal(dir)}/${literal(chars.slice(0, n).join(''))}`;
  return [...chars.map((c, i) => `${prefix(i)}${notChar(c)}*`), `${prefix(chars.length)}?*`, ...chars.slice(1).map((_, i) => prefix(i + 1))];
}

/** A path as a pattern: a character a pattern reads as special matches any one there (more is refused, never less, never the kept name). */
function literal(path: string): string {
  return path.replace(/[*?[\]\\]/g, '?');
}

/**
 * The file tools' Read deny rules for the state directory. A tree outside it: the folder and all below it. A
 * worktree job's tree inside it (`<state>/worktrees/<repo>-N`): at each level on the way, every entry but the next
 * one, so other jobs' worktrees and any state entry made later are covered while the tree stays usable.
 */
function stateReadRules(stateDir: string, tree: string): string[] {
  if (!inside(stateDir, tree) || tree === stateDir) return [literal(stateDir), `${literal(stateDir)}/**`];
  const steps = relative(stateDir, tree).split(sep);
  return steps.flatMap((step, i) => allBut(join(stateDir, ...steps.slice(0, i)), step));
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
  const tempDir = await makeOwnedTempDir('localagents-job');
  const git = await gitWrites(input.workDir);
  const hidden = hiddenPaths(input);
  // The state directory is hidden as a whole (other jobs' records, transcripts, request logs and worktrees, the HTTP
  // front doors' token files, caches: whatever appears there, also after the job started), not entry by entry: for
  // Bash with denyRead, where allowRead re-opens a worktree job's own tree (measured with 2.1.332 and bwrap: the
  // state directory then shows only the way to the tree, read and write work there); for the file tools with
  // stateReadRules. Nothing is listed, so an isolation-none job's rules are the same for every job.
  const ownInState = inside(input.stateDir, input.tree) && input.tree !== input.stateDir ? [input.tree] : [];
  const allowRead = [...new Set([...ownInState, ...policy.allowRead])];
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
        denyRead: [...hidden, input.stateDir],
        ...(allowRead.length > 0 ? { allowRead } : {}),
      },
      network: { allowedDomains: [...policy.allowedDomains], strictAllowlist: true },
      credentials: { envVars: hiddenVariables(input).map((name) => ({ name, mode: 'deny' as const })) },
    },
    permissions: {
      blockWritesOutsideWorkingDirectories: true,
      ...(git.gitEntry === undefined ? {} : { workingDirectoriesExclude: [git.gitEntry] }),
      // `//` starts an absolute path in a permission rule; the folder and all below it.
      deny: [
        ...hidden.flatMap((p) => [`Read(/${p})`, `Read(/${p}/**)`]),
        ...stateReadRules(input.stateDir, input.tree).map((p) => `Read(/${p})`),
        ...unwritable.flatMap((p) => [`Edit(/${p})`, `Edit(/${p}/**)`]),
      ],
    },
  };
  return { settings, env: { CLAUDE_CODE_TMPDIR: tempDir }, tempDir, dispose: () => rm(tempDir, { recursive: true, force: true }) };
}
