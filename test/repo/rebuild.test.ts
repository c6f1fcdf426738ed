/**
 * `npm run build` while processes of the checkout run from dist/ (an MCP server, the suite's own commands, a second
 * `npm test`): a rebuild of the same tree leaves every file where it was, so a process that loads a chunk meanwhile
 * never finds it gone or half written. The build that deleted dist/chunks/ first crashed such a process: an MCP
 * server whose first run_agent loads the run chunk closed its connection ("MCP error -32000: Connection closed").
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const DIST = path.join(ROOT, 'dist');

/** Each file under dist/ with what would change if it were written again: inode, size, modification time. */
function distFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(DIST, { recursive: true, encoding: 'utf8' })) {
    const stat = statSync(path.join(DIST, name));
    if (stat.isFile()) files[name] = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  }
  return files;
}

const build = (): void => void execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'bundle-cli.mjs')], { cwd: ROOT, stdio: 'pipe' });

describe('npm run build beside running processes', { timeout: 60_000 }, () => {
  it('a rebuild of the same tree writes no file, and takes away only chunks it no longer makes', () => {
    build(); // dist/ as this tree builds it, whatever built it before
    const stale = path.join(DIST, 'chunks', 'no-longer-built-0000.cjs');
    writeFileSync(stale, 'module.exports = {};\n');
    const before = distFiles();
    build();
    const { [path.join('chunks', 'no-longer-built-0000.cjs')]: gone, ...rest } = before;
    expect(gone).toBeDefined();
    expect(distFiles()).toEqual(rest);
  });
});
