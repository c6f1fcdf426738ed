/** What changes when a file is edited, replaced or removed: path, inode, size, mtime and ctime. */
import { stat } from 'node:fs/promises';

export async function fileSignature(path: string | undefined): Promise<string> {
  if (path === undefined) return '-';
  try {
    const s = await stat(path, { bigint: true });
    return `${path}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return `${path}:absent`;
  }
}
