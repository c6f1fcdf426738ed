/**
 * `localagents init` at a terminal offers the Claude Code status line: only a
 * typed "y" changes settings.json, and then only after a byte-for-byte backup;
 * the other settings stay; an existing statusLine is never replaced.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeDirs, serverEnv } from '../e2e/harness.js';
import { runCliInPty } from './cli-process.js';

const ORIGINAL = '{\n  "model": "opus",\n  "permissions": { "allow": ["Bash(npm test)"] }\n}\n';

function setup(settings: string | undefined) {
  const dirs = makeDirs();
  mkdirSync(dirs.claudeConfig, { recursive: true });
  if (settings !== undefined) writeFileSync(join(dirs.claudeConfig, 'settings.json'), settings);
  // No server on this port: init writes its commented file quickly.
  return { dirs, opts: { cwd: dirs.repo, env: serverEnv(dirs, { XDG_CONFIG_HOME: join(dirs.root, 'xdg') }) } };
}

const ASK = { wait: '\\[y/N\\]' };

describe('localagents init offers the status line', { timeout: 120_000 }, () => {
  it('y: backs the settings up, then adds statusLine and keeps the rest', async () => {
    const { dirs, opts } = setup(ORIGINAL);
    const r = await runCliInPty(['init', '--ports', '9'], [{ ...ASK, send: 'y' }], opts);
    expect(r.code, r.stdout).toBe(0);
    const file = join(dirs.claudeConfig, 'settings.json');
    const backups = readdirSync(dirs.claudeConfig).filter((n) => n.startsWith('settings.json.localagents-backup-'));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(dirs.claudeConfig, backups[0]!), 'utf8')).toBe(ORIGINAL);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ model: 'opus', permissions: { allow: ['Bash(npm test)'] }, statusLine: { type: 'command', command: 'localagents statusline' } });
    expect(r.stdout).toContain(`added "statusLine": localagents statusline to ${file} (the old file is ${join(dirs.claudeConfig, backups[0]!)})`);
  });

  it('anything but y leaves the file untouched, with no backup', async () => {
    const { dirs, opts } = setup(ORIGINAL);
    const r = await runCliInPty(['init', '--ports', '9'], [{ ...ASK, send: '\r' }], opts);
    expect(r.code).toBe(0);
    expect(readdirSync(dirs.claudeConfig)).toEqual(['settings.json']);
    expect(readFileSync(join(dirs.claudeConfig, 'settings.json'), 'utf8')).toBe(ORIGINAL);
    expect(r.stdout).toContain("left Claude Code's settings as they are");
  });

  it('an existing statusLine is kept, even on y', async () => {
    const mine = '{"statusLine": {"type": "command", "command": "~/.claude/mine.sh"}}\n';
    const { dirs, opts } = setup(mine);
    const r = await runCliInPty(['init', '--ports', '9'], [{ ...ASK, send: 'y' }], opts);
    expect(r.code).toBe(0);
    expect(readFileSync(join(dirs.claudeConfig, 'settings.json'), 'utf8')).toBe(mine);
    expect(r.stdout).toContain('already has a statusLine');
  });
});
