/**
 * Can Claude Code's sandbox run for a job here? Asked before a sandboxed job
 * starts (and by doctor), so a job never runs unsandboxed by surprise: what is
 * missing, how to install it, or how to turn the sandbox off, in one message.
 * Claude Code's own `failIfUnavailable` is the second wall, for what only it
 * can see (a kernel without user namespaces, say).
 */
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { claudeVersion } from '../claude/claude-binary.js';
import { SANDBOX_FROM, parseClaudeVersion, sandboxesSafely } from '../claude/claude-code-range.js';

export const TURN_OFF = 'if this machine is itself the boundary (a throwaway VM or container), turn the sandbox off in models.yaml: defaults: { sandbox: { enabled: false } }';
export const INSTALL = 'install bubblewrap and socat: sudo apt-get install bubblewrap socat (Debian, Ubuntu), sudo dnf install bubblewrap socat (Fedora), sudo pacman -S bubblewrap socat (Arch)';

export interface PreflightInput {
  readonly platform: NodeJS.Platform;
  /** The PATH the session gets: Claude Code looks bwrap and socat up on it. */
  readonly path: string | undefined;
  readonly claudePath: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
}

function findOnPath(name: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

const onPath = (name: string, path: string | undefined): boolean => findOnPath(name, path) !== undefined;

/**
 * Whether bubblewrap can make a sandbox here at all: an installed bwrap fails in a container or on a kernel
 * that forbids unprivileged user namespaces. Undefined when it can; else what it said. Takes ~7 ms.
 */
function bwrapRefusal(bwrap: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(bwrap, ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-all', '--die-with-parent', 'true'], { timeout: 10_000 }, (err, _stdout, stderr) => {
      resolve(err === null ? undefined : (stderr.trim() || err.message).split('\n')[0]?.slice(0, 300));
    });
  });
}

/** The platform pieces Claude Code's sandbox needs that this machine lacks (empty: all there). */
export function missingPieces(platform: NodeJS.Platform, path: string | undefined): string[] {
  if (platform === 'linux') return [['bwrap', 'bubblewrap (bwrap)'], ['socat', 'socat']].filter(([bin]) => !onPath(bin ?? '', path)).map(([, what]) => what ?? '');
  if (platform === 'darwin') return onPath('sandbox-exec', '/usr/bin') ? [] : ['sandbox-exec (part of macOS)'];
  return [`a sandbox for ${platform} (Claude Code sandboxes Bash on Linux and macOS only)`];
}

export interface SandboxProblem {
  /** What is wrong ("bubblewrap (bwrap) is missing"). */
  readonly what: string;
  /** What to do, each on its own. */
  readonly fixes: readonly string[];
}

/** The one message a job fails with. */
export function problemText(p: SandboxProblem): string {
  return `${p.what} — ${p.fixes.join('; ')}`;
}

/** Undefined when the sandbox can run; else what is missing and how to fix it. */
export async function sandboxProblem(input: PreflightInput): Promise<SandboxProblem | undefined> {
  const missing = missingPieces(input.platform, input.path);
  if (missing.length > 0) {
    const where = input.platform === 'linux' ? ' (not on PATH)' : '';
    return {
      what: `the sandbox cannot run: ${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} missing${where}`,
      fixes: [input.platform === 'linux' ? INSTALL : 'run localagents on Linux or macOS', TURN_OFF],
    };
  }
  const bwrap = input.platform === 'linux' ? findOnPath('bwrap', input.path) : undefined;
  const refused = bwrap === undefined ? undefined : await bwrapRefusal(bwrap);
  if (refused !== undefined) {
    return {
      what: `the sandbox cannot run: bubblewrap cannot create one here (${bwrap ?? 'bwrap'}: ${refused})`,
      fixes: ['allow unprivileged user namespaces (sudo sysctl -w kernel.unprivileged_userns_clone=1, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0; in a container, run it with a seccomp profile that allows them)', TURN_OFF],
    };
  }
  if (input.claudePath === undefined) return undefined; // no Claude Code at all: the job reports that itself
  let text: string;
  try {
    text = await claudeVersion(input.claudePath, input.env);
  } catch {
    // A Claude Code that cannot say its version will not start a session either: it reports that itself.
    return undefined;
  }
  const version = parseClaudeVersion(text);
  const min = SANDBOX_FROM;
  if (version === undefined || !sandboxesSafely(version)) {
    return {
      what: `the sandbox cannot be trusted with ${input.claudePath} (${text || 'no version'}): Claude Code before ${min} runs Bash unsandboxed when the sandbox cannot start`,
      fixes: [`use Claude Code ${min} or later (defaults.claude_code_path, or the one bundled with the Agent SDK)`, TURN_OFF],
    };
  }
  return undefined;
}
