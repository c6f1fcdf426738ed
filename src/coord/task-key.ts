/**
 * The key that signs MCP task ids (src/mcp/tasks/task-ids.ts): one owner-only
 * file in the state directory, made once and shared by every localagents
 * process of this user, so a task id a caller got before a restart still
 * verifies after it, and nobody without the file can forge one.
 */
import { randomBytes } from 'node:crypto';
import { link, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ownedFileName } from './owned-files.js';
import { privateDir, privateTempPrefix, writePrivateFile } from './private-files.js';
import { readRegularFile } from './regular-file.js';

const KEY_FILE = 'mcp-task-key';
const KEY_HEX = /^[0-9a-f]{64}$/;

async function readKey(path: string): Promise<Buffer | undefined> {
  try {
    const text = (await readRegularFile(path, { maxBytes: 200 })).toString('utf8').trim();
    if (!KEY_HEX.test(text)) throw new Error(`${path} does not hold a task key (64 hex digits); delete it and localagents makes a new one (task ids handed out before stop verifying)`);
    return Buffer.from(text, 'hex');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The key, made on first use; two processes starting at once agree on the first one linked into place. */
export async function taskKey(stateDir: string): Promise<Buffer> {
  const path = join(stateDir, KEY_FILE);
  const found = await readKey(path);
  if (found !== undefined) return found;
  await privateDir(stateDir);
  const tmp = ownedFileName(privateTempPrefix(path), 'new');
  await writePrivateFile(tmp, `${randomBytes(32).toString('hex')}\n`);
  // link() fails if the key exists: never replaces a key another process already handed ids out with.
  await link(tmp, path).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
  await unlink(tmp).catch(() => undefined);
  const key = await readKey(path);
  if (key === undefined) throw new Error(`${path} vanished while it was made`);
  return key;
}
