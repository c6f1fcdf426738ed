/**
 * Bare `claude -p` (the binary bundled with the Agent SDK) as a user runs it
 * from a shell, pointed at a backend — the baseline for job start and for the
 * all-at-once scheduling variant.
 */
import { spawn } from 'node:child_process';
import { bundledClaudePath } from '../../src/jobs/claude/claude-binary.js';

export interface ClaudeProcess {
  readonly pid: number;
  /** Resolves with the exit code when the process ends. */
  readonly exited: Promise<number | null>;
}

export function spawnClaudeP(prompt: string, cwd: string, env: Record<string, string>): ClaudeProcess {
  const claude = bundledClaudePath();
  if (!claude) throw new Error('the Agent SDK has no bundled claude binary for this platform');
  const child = spawn(claude, ['-p', prompt, '--output-format', 'json', '--permission-mode', 'acceptEdits', '--allowedTools', 'Write,Bash,Read,Edit'], {
    cwd,
    env,
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
  const exited = new Promise<number | null>((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
  return { pid: child.pid ?? -1, exited };
}
