/**
 * Short-lived files and folders (temp files, broken locks, a job's private temp
 * folders) whose names carry their owner, so whoever comes next can tell a
 * leftover of a SIGKILLed process from the live work of another one, and remove
 * only the leftover.
 */
import { lstat, mkdir, readdir, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { isAlive, selfIdentity, type ProcessIdentity } from './process-identity.js';

/** `<pathPrefix>.<pid>@<start>.<uuid>.<suffix>`: unique, and names this process as its owner (node:crypto loaded only when one is made). */
export function ownedFileName(pathPrefix: string, suffix: string, owner: ProcessIdentity = selfIdentity): string {
  return `${pathPrefix}.${owner.pid}@${owner.start ?? '-'}.${process.getBuiltinModule('node:crypto').randomUUID()}.${suffix}`;
}

/** The owner named in a file made by ownedFileName, or undefined for any other name. */
export function ownerOfFile(name: string, prefix: string, suffix: string): ProcessIdentity | undefined {
  if (!name.startsWith(`${prefix}.`) || !name.endsWith(`.${suffix}`)) return undefined;
  const middle = name.slice(prefix.length + 1, -(suffix.length + 1));
  const match = /^(\d{1,10})@([^./]{1,64})\.[0-9a-f-]{36}$/.exec(middle);
  if (match === null) return undefined;
  return { pid: Number(match[1]), start: match[2] === '-' ? undefined : match[2] };
}

/** Calls `remove` on each entry `pathPrefix.<owner>.<uuid>.<suffix>` whose owner is dead; returns the names removed. */
async function sweepDeadOwners(pathPrefix: string, suffixes: readonly string[], remove: (path: string) => Promise<boolean>): Promise<string[]> {
  const dir = dirname(pathPrefix);
  const prefix = basename(pathPrefix);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return []; // nothing to sweep where nothing can be read
  }
  const removed: string[] = [];
  for (const name of names) {
    for (const suffix of suffixes) {
      const owner = ownerOfFile(name, prefix, suffix);
      if (owner === undefined || isAlive(owner)) continue;
      // false: not a leftover to remove here; a failure: another process swept it first.
      if (await remove(join(dir, name)).catch(() => false)) removed.push(name);
    }
  }
  return removed;
}

/**
 * Removes the files `pathPrefix.<owner>.<uuid>.<suffix>` whose owner is dead; returns the names removed.
 * Live owners' files are theirs: never touched.
 */
export function removeDeadOwnersFiles(pathPrefix: string, suffixes: readonly string[]): Promise<string[]> {
  return sweepDeadOwners(pathPrefix, suffixes, (path) => unlink(path).then(() => true));
}

const TEMP_DIR_SUFFIX = 'd';
/** The folder names this process has made one of, so has swept once. */
const sweptNames = new Set<string>();

/**
 * A new folder in the temp directory only this user can enter, whose name says this process owns it. The first
 * one of a name a process makes also starts a sweep of that name's folders left by dead owners.
 */
export async function makeOwnedTempDir(name: string): Promise<string> {
  if (!sweptNames.has(name)) {
    sweptNames.add(name);
    void removeDeadOwnersTempDirs(name).catch(() => undefined); // a leftover stays until the next process tries
  }
  const dir = ownedFileName(join(tmpdir(), name), TEMP_DIR_SUFFIX);
  await mkdir(dir, { mode: 0o700 });
  return dir;
}

/**
 * Removes the temp folders made by makeOwnedTempDir(name) whose owner is dead (a process SIGKILLed before it
 * could remove them); returns their names. The temp directory is shared: only this user's folders are
 * removed, never a link or anything of another user's that merely carries such a name.
 */
function removeDeadOwnersTempDirs(name: string): Promise<string[]> {
  return sweepDeadOwners(join(tmpdir(), name), [TEMP_DIR_SUFFIX], async (path) => {
    const found = await lstat(path);
    if (!found.isDirectory() || found.uid !== process.getuid?.()) return false;
    await rm(path, { recursive: true, force: true });
    return true;
  });
}
