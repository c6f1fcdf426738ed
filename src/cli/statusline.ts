/**
 * `localagents statusline`, for Claude Code's statusLine setting: reads the JSON
 * Claude Code pipes in (the session's directory: workspace.current_dir, else cwd),
 * prints one line and exits 0, whatever happens; never a stack trace, nothing at
 * all when there is nothing to say.
 */
import { createReadApp } from '../app/read-app.js';
import { errorMessage } from '../errors.js';
import { print } from './output.js';
import { statusLineText } from './status-line-text.js';
import type { AppContext } from './with-app.js';

/** Claude Code's status JSON is a few kB; more is not from it. */
const MAX_INPUT_BYTES = 1024 * 1024;
/** Claude Code writes the JSON and closes stdin at once; a pipe left open must not hang the line. */
const INPUT_WAIT_MS = 500;

async function readInput(): Promise<string> {
  if (process.stdin.isTTY) return '';
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      clearTimeout(timer);
      process.stdin.pause();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const timer = setTimeout(done, INPUT_WAIT_MS);
    process.stdin.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_INPUT_BYTES) chunks.push(chunk);
    });
    process.stdin.once('end', done);
    process.stdin.once('error', done);
  });
}

/** The session's project directory from Claude Code's JSON; undefined for anything else. */
export function projectDirOf(input: string): string | undefined {
  let json: unknown;
  try {
    json = JSON.parse(input);
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null) return undefined;
  const { workspace, cwd } = json as { workspace?: { current_dir?: unknown; project_dir?: unknown }; cwd?: unknown };
  for (const dir of [workspace?.project_dir, workspace?.current_dir, cwd]) if (typeof dir === 'string' && dir.startsWith('/')) return dir.replace(/\/+$/, '') || '/';
  return undefined;
}

export async function statusLine(ctx: AppContext, configPath: string | undefined, now: Date = new Date()): Promise<string> {
  const projectDir = projectDirOf(await readInput());
  // A broken models.yaml is doctor's to report; the line falls back to the default comparison.
  const app = createReadApp({ configPath, cwd: ctx.cwd, env: ctx.env });
  try {
    return statusLineText(await app.statusFacts(projectDir, now));
  } catch (err) {
    const code = (err as { cause?: NodeJS.ErrnoException }).cause?.code;
    return `localagents: cannot read the state directory ${app.stateDir}${code === undefined ? `: ${errorMessage(err).slice(0, 120)}` : ` (${code})`}`;
  }
}

/** The whole command: one line or nothing on stdout, exit 0, whatever went wrong. */
export async function printStatusLine(ctx: AppContext, configPath: string | undefined): Promise<void> {
  const line = await statusLine(ctx, configPath).catch(() => 'localagents: status unavailable');
  if (line !== '') print(line);
}
