/** Runs the bundled Claude Code binary headless (`claude -p`), as a user would from a shell. */
import { spawn } from 'node:child_process';
import { bundledClaudePath } from '../../src/jobs/claude/claude-binary.js';

export interface ClaudeRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The final `result` message of --output-format json, when there is one. */
  readonly result: { is_error?: boolean; result?: string; num_turns?: number; session_id?: string } | undefined;
}

export function runClaudeP(prompt: string, cwd: string, env: Record<string, string>, timeoutMs = 120_000): Promise<ClaudeRun> {
  return runClaude(['-p', prompt, '--output-format', 'json', '--permission-mode', 'acceptEdits', '--allowedTools', 'Write,Bash,Read,Edit'], cwd, env, timeoutMs);
}

/** The bundled binary with any arguments; killed after `timeoutMs`. `result` is stdout read as --output-format json. */
export function runClaude(args: readonly string[], cwd: string, env: Record<string, string>, timeoutMs: number): Promise<ClaudeRun> {
  const claude = bundledClaudePath();
  if (!claude) throw new Error('the Agent SDK has no bundled claude binary for this platform');
  return new Promise((resolve) => {
    const child = spawn(claude, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      let result: ClaudeRun['result'];
      try {
        result = JSON.parse(stdout) as ClaudeRun['result'];
      } catch {
        result = undefined;
      }
      resolve({ code, stdout, stderr, result });
    });
  });
}

/** The env a user sets to point Claude Code somewhere else, minus anything of theirs. */
export function claudeEnv(baseUrl: string, home: string, configDir: string, model: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    CLAUDE_CONFIG_DIR: configDir,
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: 'local',
    ANTHROPIC_MODEL: model,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    ...extra,
  };
}
