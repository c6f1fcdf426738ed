/**
 * Drives the built `localagents` binary as a user would: through a pipe, or
 * under a pseudo-terminal (pty-run.py, since node-pty is not available).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { BIN } from '../e2e/harness.js';

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** Written to stdin, which is then closed; without it stdin is closed at once. */
  readonly input?: string;
  readonly timeoutMs?: number;
}

export interface Started {
  readonly child: ChildProcess;
  readonly result: Promise<CliResult>;
  /** Everything written to stdout so far. */
  stdout(): string;
  stderr(): string;
}

function collect(command: string, args: readonly string[], options: CliOptions): Started {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  // A command that never reads its input may exit before it is written: EPIPE then says nothing about the CLI.
  child.stdin?.on('error', () => undefined);
  child.stdin?.end(options.input ?? '');
  const result = new Promise<CliResult>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  return { child, result, stdout: () => stdout, stderr: () => stderr };
}

/** `localagents ARGS…` with stdout and stderr on pipes. */
export function startCli(args: readonly string[], options: CliOptions): Started {
  return collect(process.execPath, [BIN, ...args], options);
}

export function runCli(args: readonly string[], options: CliOptions): Promise<CliResult> {
  return startCli(args, options).result;
}

export interface PtyStep {
  /** A regular expression the output since the previous step must match. */
  readonly wait: string;
  /** What to type then ("\u0003" is Ctrl-C). */
  readonly send: string;
}

/** `localagents ARGS…` on a pseudo-terminal of `columns` columns; stdout is everything the terminal showed. */
export function runCliInPty(args: readonly string[], steps: readonly PtyStep[], options: CliOptions & { columns?: number }): Promise<CliResult> {
  const helper = join(import.meta.dirname, 'pty-run.py');
  return collect('python3', [helper, JSON.stringify(steps), String(options.columns ?? 100), '--', process.execPath, BIN, ...args], options).result;
}

/** The job id a `run` printed in its first line. */
export function jobIdIn(text: string): string {
  const id = /job (\d{8}-\d{6}-[0-9a-z]{12})/.exec(text)?.[1];
  if (id === undefined) throw new Error(`no job id in: ${text.slice(0, 300)}`);
  return id;
}
