/**
 * Adding `localagents statusline` to Claude Code's user settings
 * (`$CLAUDE_CONFIG_DIR/settings.json`, default ~/.claude/settings.json) when the
 * user says yes in `localagents init`: a backup of the file first, the other
 * settings kept as they are, an existing statusLine never replaced, a file that
 * is not a JSON object left alone.
 */
import { copyFile, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ConfigError, errorMessage } from '../errors.js';
import { isErrno } from '../errors.js';

export const STATUSLINE_SETTING = { type: 'command', command: 'localagents statusline' } as const;

/** Claude Code's settings file ($CLAUDE_CONFIG_DIR, else ~/.claude). */
export function claudeSettingsPath(env: Readonly<Record<string, string | undefined>>, home: string): string {
  return join(env.CLAUDE_CONFIG_DIR || join(home, '.claude'), 'settings.json');
}

export type StatusLineOutcome = { readonly added: true; readonly backup: string | undefined } | { readonly added: false; readonly existing: unknown };

export async function addStatusLine(file: string, now: Date = new Date()): Promise<StatusLineOutcome> {
  let text: string | undefined;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw new ConfigError(file, `could not read ${file}: ${errorMessage(err)}`);
  }
  let settings: Record<string, unknown> = {};
  if (text !== undefined && text.trim() !== '') {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new ConfigError(file, `${file} is not JSON (${errorMessage(err)}); left as it is`, { hint: 'Fix it, or add "statusLine": {"type": "command", "command": "localagents statusline"} by hand.' });
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new ConfigError(file, `${file} does not hold a JSON object; left as it is`);
    settings = json as Record<string, unknown>;
  }
  if (settings.statusLine !== undefined) return { added: false, existing: settings.statusLine };
  let backup: string | undefined;
  if (text !== undefined) {
    backup = `${file}.localagents-backup-${now.toISOString().replace(/[:.]/g, '-')}`;
    await copyFile(file, backup);
  }
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.localagents-tmp-${process.pid}`;
  await writeFile(temp, `${JSON.stringify({ ...settings, statusLine: STATUSLINE_SETTING }, null, 2)}\n`, { mode: 0o600 });
  await rename(temp, file);
  return { added: true, backup };
}
