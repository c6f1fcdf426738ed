/**
 * Where the Agent SDK's bundled Claude Code binary lives, and its version.
 * The SDK pins the binary (and so the wire format we were measured against).
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

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

/** `env` is the whole environment of the check: the self-test passes its throwaway HOME. */
export function claudeVersion(path: string, env: Readonly<Record<string, string | undefined>>, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(path, ['--version'], { timeout: timeoutMs, env: { PATH: env.PATH ?? '', HOME: env.HOME ?? '' } }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${path} --version failed: ${(stderr || err.message).trim()}`));
      else resolve(stdout.trim());
    });
  });
}
