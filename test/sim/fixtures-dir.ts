/**
 * Where the captured fixtures live: `test/fixtures/` in this repository
 * (bodies from real Claude Code and llama-server; provenance in its README).
 */
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const FIXTURES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

export function fixturePath(...parts: string[]): string {
  return path.resolve(FIXTURES_DIR, ...parts);
}
