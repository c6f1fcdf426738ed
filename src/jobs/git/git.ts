/**
 * git through execFile: never a shell, never blocking the event loop, and
 * every exit status checked by the caller.
 */
import { execFile } from 'node:child_process';

export interface GitResult {
  readonly ok: boolean;
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number;
}

export function git(cwd: string, args: readonly string[]): Promise<GitResult> {
  return new Promise((resolve) => {
    execFile('git', ['-C', cwd, ...args], { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
      resolve({ ok: err === null, stdout, stderr: stderr || (err?.message ?? ''), code });
    });
  });
}
