/**
 * The verify command gets no more power than the session's Bash. Claude Code
 * runs hooks outside its sandbox, so localagents wraps the check itself, with
 * bubblewrap (which Claude Code's Linux sandbox is built on, and which the
 * sandbox preflight already requires) and the very filesystem lists pinned in
 * the session's flag settings: writes only where Bash may write, hidden paths
 * hidden, secret variables unset. The network is cut off entirely (its own
 * empty namespace): Bash reaches allowed hosts only through Claude Code's
 * proxy, which exists only inside the session, so the check gets less, never more.
 */
import { existsSync, statSync } from 'node:fs';
import type { FlagSettings } from '../claude/pinned-settings.js';
import { inside } from '../sandbox/git-writes.js';

type SandboxBlock = NonNullable<FlagSettings['sandbox']>;

function existing(paths: readonly string[] | undefined): string[] {
  return (paths ?? []).filter((p) => existsSync(p));
}

/** bwrap's arguments for the sandbox block, up to and including `--`. Later mounts win, so the order is the policy. */
export function bwrapArgs(sandbox: SandboxBlock, cwd: string): string[] {
  const fs = sandbox.filesystem ?? {};
  const args = ['--die-with-parent', '--new-session', '--unshare-net', '--unshare-pid', '--unshare-ipc', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  for (const p of existing(fs.allowWrite)) args.push('--bind', p, p);
  for (const p of existing(fs.denyWrite)) args.push('--ro-bind', p, p);
  const hiddenDirs: string[] = [];
  for (const p of existing(fs.denyRead)) {
    // A hidden folder becomes an empty read-only one (made read-only last: bwrap makes the folders on the way to a
    // place re-opened below in it), a hidden file an empty file.
    if (statSync(p).isDirectory()) {
      args.push('--tmpfs', p);
      hiddenDirs.push(p);
    } else args.push('--ro-bind', '/dev/null', p);
  }
  // A place re-opened inside a hidden one (a worktree job's tree in the hidden state directory) is writable again
  // where Bash may write there, with what stays read-only inside it.
  for (const p of existing(fs.allowRead)) {
    const writable = (fs.allowWrite ?? []).some((w) => inside(w, p));
    args.push(writable ? '--bind' : '--ro-bind', p, p);
    if (writable) for (const d of existing(fs.denyWrite).filter((d) => inside(p, d))) args.push('--ro-bind', d, d);
  }
  for (const p of hiddenDirs) args.push('--remount-ro', p);
  args.push('--chdir', cwd, '--');
  return args;
}

/** The variables the sandbox unsets for Bash. */
export function hiddenVariables(sandbox: SandboxBlock): Set<string> {
  const vars = (sandbox as { credentials?: { envVars?: ReadonlyArray<{ name: string }> } }).credentials?.envVars ?? [];
  return new Set(vars.map((v) => v.name));
}
