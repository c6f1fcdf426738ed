/**
 * Claims the lowest free `<stem>-<n>` folder under `parent` with mkdir, which only one process can win. Jobs that
 * run one after another in the same place get the same path back, so what Claude Code writes into its prompt
 * about the path stays the same and the model server's prompt cache holds; jobs at the same time get their own.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isErrno } from '../errors.js';

export async function claimNumberedDir(parent: string, stem: string): Promise<string> {
  await mkdir(parent, { recursive: true, mode: 0o700 });
  for (let n = 1; ; n++) {
    const path = join(parent, `${stem}-${n}`);
    try {
      await mkdir(path, { mode: 0o700 });
      return path;
    } catch (err) {
      if (!isErrno(err, 'EEXIST')) throw err;
    }
  }
}
