/**
 * Short-lived files (temp files, broken locks) whose names carry their owner, so
 * whoever comes next can tell a leftover of a SIGKILLed process from the live
 * work of another one, and remove only the leftover.
 */
import { readdir, unlink } from 'node:fs/promises';
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

/**
 * Removes the files `pathPrefix.<owner>.<uuid>.<suffix>` whose owner is dead; returns the names removed.
 * Live owners' files are theirs: never touched.
 */
export async function removeDeadOwnersFiles(pathPrefix: string, suffixes: readonly string[]): Promise<string[]> {
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
      await unlink(join(dir, name)).then(
        () => removed.push(name),
        () => undefined, // another process swept it first
      );
    }
  }
  return removed;
}
