/**
 * Exactly what `git add` and `git commit` in the job's tree write, and nothing
 * else of the repository's git folder. Measured with strace on git 2.x
 * (docs/sandbox.md): a commit in a worktree writes its own admin folder
 * (.git/worktrees/<name>: index, COMMIT_EDITMSG, HEAD.lock, logs/HEAD), the
 * object store, its branch's ref (through <ref>.lock beside it) and reflog.
 *
 * Claude Code makes the git folder of a worktree writable as a whole and
 * protects only hooks and config; so every other entry on the way to those
 * places is listed read-only here: other branches, tags, packed-refs, other
 * worktrees' admin folders, info/, and the two files that say where the
 * repository is (commondir, gitdir, and the worktree's own `.git` file) —
 * rewritten, they would point localagents' own git commands after the job at
 * a config the model wrote.
 */
import { mkdir, readdir } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { git } from '../git/git.js';

export interface GitWrites {
  /** Places a commit writes (folders: the ref's lock file is created beside the ref). */
  readonly allowWrite: string[];
  /** Everything else on the way there that exists now, and the files that locate the repository. */
  readonly denyWrite: string[];
  /** The tree's `.git` (folder or file): Bash commits through git, the file tools have no business there. */
  readonly gitEntry: string | undefined;
}

const NONE: GitWrites = { allowWrite: [], denyWrite: [], gitEntry: undefined };

/** Files of an admin folder that say where the repository is, or carry config: never the model's to change. */
const LOCATORS = ['commondir', 'gitdir', 'config.worktree'];

async function entries(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => [] as string[]);
}

/**
 * Read-only every existing entry under `root` that is not on the way to one of `keep` (relative paths).
 * A kept path is writable with all below it; a folder on the way stays writable for new entries
 * (a lock file, a new loose object folder), its other existing entries do not.
 */
async function denySiblings(root: string, keep: readonly string[]): Promise<string[]> {
  const denied: string[] = [];
  const walk = async (dir: string, rel: string): Promise<void> => {
    const onTheWay = new Set<string>();
    for (const k of keep) {
      if (rel !== '' && !k.startsWith(`${rel}/`)) continue;
      const rest = rel === '' ? k : k.slice(rel.length + 1);
      onTheWay.add(rest.split('/')[0] ?? rest);
    }
    for (const name of await entries(dir)) {
      const childRel = rel === '' ? name : `${rel}/${name}`;
      if (!onTheWay.has(name)) denied.push(join(dir, name));
      else if (!keep.includes(childRel)) await walk(join(dir, name), childRel);
    }
  };
  await walk(root, '');
  return denied;
}

/** `child` is `parent` or below it (both absolute). */
export function inside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** For the tree at `workDir`: what a commit there may write. Not a git tree: nothing to add. */
export async function gitWrites(workDir: string): Promise<GitWrites> {
  const info = await git(workDir, ['rev-parse', '--absolute-git-dir', '--git-common-dir', '--show-toplevel', '--symbolic-full-name', 'HEAD']);
  if (!info.ok) return NONE;
  const [gitDir, commonRaw, top, head] = info.stdout.split('\n').map((l) => l.trim());
  if (!gitDir || !commonRaw || !top) return NONE;
  const commonDir = resolve(workDir, commonRaw);
  const branchRef = head !== undefined && head.startsWith('refs/heads/') ? head : undefined;

  // Made now, outside the sandbox, so git never needs to create them inside it.
  const refDirs = branchRef === undefined ? [] : [dirname(join(commonDir, branchRef)), dirname(join(commonDir, 'logs', branchRef))];
  await Promise.all(refDirs.map((d) => mkdir(d, { recursive: true }).catch(() => undefined)));

  const keep = ['objects', ...(branchRef === undefined ? [] : [branchRef, `logs/${branchRef}`])];
  const linked = gitDir !== commonDir;
  if (linked && inside(commonDir, gitDir)) keep.push(relative(commonDir, gitDir).split(sep).join('/'));
  // The main repository's own folder: the index and HEAD's reflog are the tree's; HEAD itself only when detached.
  if (!linked) keep.push('index', 'COMMIT_EDITMSG', 'ORIG_HEAD', 'logs/HEAD', ...(branchRef === undefined ? ['HEAD'] : []));

  const denyWrite = await denySiblings(commonDir, keep);
  if (linked) {
    denyWrite.push(...LOCATORS.map((f) => join(gitDir, f)));
    // The worktree's `.git` file names its admin folder.
    denyWrite.push(join(top, '.git'));
  }
  const allowWrite = [join(commonDir, 'objects'), ...(linked ? [gitDir] : [commonDir]), ...refDirs];
  return { allowWrite, denyWrite, gitEntry: join(top, '.git') };
}
