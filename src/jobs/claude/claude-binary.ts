/**
 * Which Claude Code executable runs the sessions, and its version. In order:
 * `defaults.claude_code_path` in models.yaml; the binary bundled with the Agent
 * SDK (it pins the wire format we were measured against) when it is installed;
 * the Claude Code that started this process (a plugin installed from git has
 * no node_modules); `claude` on PATH.
 */
import { execFile, execFileSync } from 'node:child_process';
import { accessSync, constants, readFileSync, readlinkSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, delimiter, dirname, join } from 'node:path';

export type ClaudeCodeSource = 'models.yaml' | 'agent sdk' | 'parent' | 'PATH' | 'given';

export interface ClaudeCode {
  readonly path: string;
  /** Where it was found, in the words doctor and the record use. */
  readonly source: ClaudeCodeSource;
}

export const SOURCE_WORDS: Record<ClaudeCodeSource, string> = {
  'models.yaml': 'defaults.claude_code_path in models.yaml',
  'agent sdk': 'bundled with the Agent SDK',
  parent: 'the Claude Code that started this server',
  PATH: 'claude on PATH',
  given: 'given by the caller',
};

export function bundledClaudePath(): string | undefined {
  const require = createRequire(import.meta.url);
  const arch = process.arch;
  const candidates = [`@anthropic-ai/claude-agent-sdk-${process.platform}-${arch}`, `@anthropic-ai/claude-agent-sdk-${process.platform}-${arch}-musl`];
  for (const pkg of candidates) {
    try {
      return join(dirname(require.resolve(`${pkg}/package.json`)), process.platform === 'win32' ? 'claude.exe' : 'claude');
    } catch {
      // not installed for this platform; try the next
    }
  }
  return undefined;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A native `claude` binary, or Claude Code's cli.js run by node: what the parent process is. */
function claudeOf(exe: string, args: readonly string[]): string | undefined {
  if (/^claude(\.exe)?$/.test(basename(exe))) return exe;
  const script = args[1];
  if (/^node(\.exe)?$/.test(basename(exe)) && script !== undefined && /claude-code[\\/]cli\.js$/.test(script)) return script;
  return undefined;
}

/** The parent process's executable: /proc on Linux, `ps` elsewhere. */
export function parentClaudePath(ppid: number = process.ppid): string | undefined {
  try {
    const exe = readlinkSync(`/proc/${ppid}/exe`);
    const args = readFileSync(`/proc/${ppid}/cmdline`, 'utf8').split('\0');
    return claudeOf(exe.replace(/ \(deleted\)$/, ''), args);
  } catch {
    // no /proc (macOS): ask ps for the command line
  }
  try {
    const command = execFileSync('ps', ['-o', 'command=', '-p', String(ppid)], { encoding: 'utf8', timeout: 5_000 }).trim();
    const args = command.split(/\s+/);
    return args[0] === undefined ? undefined : claudeOf(args[0], args);
  } catch {
    return undefined;
  }
}

function onPath(env: Readonly<Record<string, string | undefined>>): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    const candidate = dir ? join(dir, process.platform === 'win32' ? 'claude.exe' : 'claude') : '';
    if (candidate && isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export interface FindOptions {
  /** `defaults.claude_code_path` from models.yaml. */
  readonly configured?: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The first Claude Code found, in the documented order; undefined when there is none at all. */
export function findClaudeCode(opts: FindOptions): ClaudeCode | undefined {
  if (opts.configured) return { path: opts.configured, source: 'models.yaml' };
  const bundled = bundledClaudePath();
  if (bundled !== undefined && isExecutable(bundled)) return { path: bundled, source: 'agent sdk' };
  const parent = parentClaudePath();
  if (parent !== undefined) return { path: parent, source: 'parent' };
  const found = onPath(opts.env);
  return found === undefined ? undefined : { path: found, source: 'PATH' };
}

export const NO_CLAUDE_CODE =
  'no Claude Code found: not set in models.yaml (defaults.claude_code_path), not installed with the Agent SDK, not the process that started localagents, and no claude on PATH';

/** Versions read in this process, by executable path: the answer and the file it came from. */
const knownVersions = new Map<string, { readonly file: string; readonly version: Promise<string> }>();

/**
 * What `path --version` says. Asked once per file in a process (every sandboxed job asks); a file replaced in
 * place (an upgrade) has another identity and is asked again, and a failure is not remembered.
 * `env` is the whole environment of the check: the self-test passes its throwaway HOME.
 */
export async function claudeVersion(path: string, env: Readonly<Record<string, string | undefined>>, timeoutMs = 30_000): Promise<string> {
  const info = await stat(path).catch(() => undefined);
  const file = info === undefined ? undefined : `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
  const known = knownVersions.get(path);
  if (file !== undefined && known?.file === file) return known.version;
  const version = askVersion(path, env, timeoutMs);
  if (file !== undefined) {
    knownVersions.set(path, { file, version });
    version.catch(() => {
      if (knownVersions.get(path)?.version === version) knownVersions.delete(path);
    });
  }
  return version;
}

function askVersion(path: string, env: Readonly<Record<string, string | undefined>>, timeoutMs: number): Promise<string> {
  const [command, args] = path.endsWith('.js') ? [process.execPath, [path, '--version']] : [path, ['--version']];
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: timeoutMs, env: { PATH: env.PATH ?? '', HOME: env.HOME ?? '' } }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${path} --version failed: ${(stderr || err.message).trim()}`));
      else resolve(stdout.trim());
    });
  });
}
