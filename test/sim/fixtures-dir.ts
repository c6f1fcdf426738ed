/**
 * Where the shared fixtures live: `../shared/fixtures` next to the repository
 * root (the same layout locally and in CI).
 */
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function fixturePath(...parts: string[]): string {
  return path.resolve(REPO_ROOT, '..', 'shared', 'fixtures', ...parts);
}
