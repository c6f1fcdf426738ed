/**
 * A PATH with every program of this one but the named ones (bwrap, socat): a
 * machine without bubblewrap, as Claude Code and localagents see it.
 */
import { mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export function pathWithout(names: readonly string[], path: string = process.env.PATH ?? '/usr/bin:/bin'): string {
  const dir = mkdtempSync(join(tmpdir(), 'la-path-without-'));
  const seen = new Set<string>(names);
  for (const from of path.split(delimiter)) {
    let entries: string[];
    try {
      entries = readdirSync(from);
    } catch {
      continue;
    }
    for (const name of entries) {
      if (seen.has(name)) continue;
      seen.add(name);
      symlinkSync(join(from, name), join(dir, name));
    }
  }
  return dir;
}
