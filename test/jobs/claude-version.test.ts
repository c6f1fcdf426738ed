/**
 * `claude --version` runs once per executable file in a process: every sandboxed job asks it (the sandbox needs
 * a Claude Code that fails closed), and the answer is the file's. A file replaced in place (an upgrade) is asked again.
 */
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeVersion } from '../../src/jobs/claude/claude-binary.js';
import { makeTempDir, type TempDir } from '../config/temp-dir.js';

let tmp: TempDir;
beforeEach(async () => {
  tmp = await makeTempDir();
});
afterEach(() => tmp.remove());

/** A Claude Code stand-in (a .js path runs under node) that says `version` and counts its runs in `runs`. */
function fakeClaude(path: string, runs: string, version: string): void {
  writeFileSync(path, `require('node:fs').appendFileSync(${JSON.stringify(runs)}, 'run\\n'); console.log(${JSON.stringify(`${version} (Claude Code)`)});\n`);
}

describe('claudeVersion', () => {
  it('asks a file once for its version, and again once the file is replaced', async () => {
    const bin = join(tmp.path, 'claude.js');
    const runs = join(tmp.path, 'runs');
    appendFileSync(runs, '');
    fakeClaude(bin, runs, '2.1.332');
    const env = { PATH: process.env.PATH, HOME: tmp.path };
    const answers = await Promise.all([claudeVersion(bin, env), claudeVersion(bin, env)]);
    answers.push(await claudeVersion(bin, env));
    expect(answers).toEqual(['2.1.332 (Claude Code)', '2.1.332 (Claude Code)', '2.1.332 (Claude Code)']);
    expect(readFileSync(runs, 'utf8')).toBe('run\n');

    fakeClaude(bin, runs, '2.2.0 and a longer file');
    expect(await claudeVersion(bin, env)).toBe('2.2.0 and a longer file (Claude Code)');
    expect(readFileSync(runs, 'utf8')).toBe('run\nrun\n');
  });

  it('does not remember a failure: the same file is asked again', async () => {
    const bin = join(tmp.path, 'claude.js');
    const broken = join(tmp.path, 'broken');
    writeFileSync(broken, '');
    writeFileSync(bin, `if (require('node:fs').existsSync(${JSON.stringify(broken)})) process.exit(3); console.log('2.1.332 (Claude Code)');\n`);
    const env = { PATH: process.env.PATH, HOME: tmp.path };
    await expect(claudeVersion(bin, env)).rejects.toThrow(`${bin} --version failed`);
    rmSync(broken);
    expect(await claudeVersion(bin, env)).toBe('2.1.332 (Claude Code)');
  });
});
