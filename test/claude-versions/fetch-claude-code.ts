/**
 * Fetches a released Claude Code into a per-machine cache, as test/real/build-llama-server.ts caches llama-server:
 * `npm pack` from the registry (never a dependency of the project), unpacked once into
 * ~/.cache/localagents/claude-code/<version>/. Returns the path `defaults.claude_code_path` takes.
 *
 * Two shapes are published. Up to 2.1.109 `@anthropic-ai/claude-code` ships `cli.js`, which node runs (the Agent SDK
 * and localagents run a `.js` path with node). From 2.1.110 the platform package `@anthropic-ai/claude-code-linux-x64`
 * (and its siblings) holds the native `claude` binary (`npm view @anthropic-ai/claude-code-linux-x64 versions` starts
 * at 2.1.110), and the main package soon after stops shipping cli.js.
 *
 * Run directly: `node --import tsx test/claude-versions/fetch-claude-code.ts 2.0.30 2.1.332` prints one path a line.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compareVersions } from '../../src/jobs/claude/claude-code-range.js';

const FIRST_NATIVE = '2.1.110';

export const claudeCodeCache = (): string =>
  process.env.LOCALAGENTS_CLAUDE_CODE_CACHE ?? join(homedir(), '.cache', 'localagents', 'claude-code');

/** The npm package holding this version for this machine, and the executable's path inside the unpacked package. */
function packageOf(version: string): { spec: string; executable: string } {
  if (compareVersions(version, FIRST_NATIVE) < 0) return { spec: `@anthropic-ai/claude-code@${version}`, executable: 'cli.js' };
  const platform = `${process.platform}-${process.arch}`;
  return { spec: `@anthropic-ai/claude-code-${platform}@${version}`, executable: process.platform === 'win32' ? 'claude.exe' : 'claude' };
}

/** The cached executable of `version`, fetched on first use. */
export function ensureClaudeCode(version: string): string {
  const { spec, executable } = packageOf(version);
  const dir = join(claudeCodeCache(), version);
  const path = join(dir, 'package', executable);
  if (existsSync(path)) return path;
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  process.stderr.write(`[claude-code] fetching ${spec} with npm pack\n`);
  execFileSync('npm', ['pack', spec, '--silent'], { cwd: partial, stdio: ['ignore', 'ignore', 'inherit'] });
  const tarball = readdirSync(partial).find((f) => f.endsWith('.tgz'));
  if (tarball === undefined) throw new Error(`npm pack ${spec} left no tarball in ${partial}`);
  execFileSync('tar', ['-xzf', tarball], { cwd: partial, stdio: ['ignore', 'ignore', 'inherit'] });
  rmSync(join(partial, tarball));
  if (!existsSync(join(partial, 'package', executable))) throw new Error(`${spec} has no ${executable}`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(partial, dir);
  return path;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const version of process.argv.slice(2)) process.stdout.write(`${ensureClaudeCode(version)}\n`);
}
