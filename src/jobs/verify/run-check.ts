/**
 * Runs one verify command to its end or its time limit: its own process group
 * (a cut also ends what it started), stdin closed, and only the end of its
 * output kept, however much it prints.
 */
import { spawn } from 'node:child_process';
import { signalGroup, stopGroup } from '../../coord/process-group.js';
import { redactSecrets } from '../../secrets/redact.js';
import type { VerifyAttempt } from './record.js';

/** What is kept of the output while it runs; the tail shown is cut from this. */
const KEEP_BYTES = 64 * 1024;
/** The tail that goes to the record and back to the model. */
export const TAIL_CHARS = 4000;
/** After SIGTERM at the time limit, this long before SIGKILL. */
const KILL_GRACE_MS = 2000;

export interface CheckRun {
  /** The program and its arguments (the shell, or the sandbox around the shell). */
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** The job's own stop (cancel, timeout, shutdown) ends the check too. */
  readonly signal: AbortSignal;
}

/** Keeps the last KEEP_BYTES of a stream of chunks. */
function tailKeeper(): { add(chunk: Buffer): void; text(): string } {
  let chunks: Buffer[] = [];
  let size = 0;
  return {
    add(chunk) {
      chunks.push(chunk);
      size += chunk.length;
      if (size > 2 * KEEP_BYTES) {
        const all = Buffer.concat(chunks).subarray(-KEEP_BYTES);
        chunks = [all];
        size = all.length;
      }
    },
    text: () => Buffer.concat(chunks).subarray(-KEEP_BYTES).toString('utf8'),
  };
}

export function checkTail(output: string): string {
  const redacted = redactSecrets(output);
  return redacted.length > TAIL_CHARS ? redacted.slice(-TAIL_CHARS) : redacted;
}

export function runCheck(run: CheckRun): Promise<Omit<VerifyAttempt, 'spent_after'>> {
  const startedAt = new Date();
  const started = performance.now();
  const out = tailKeeper();
  return new Promise((resolve) => {
    const [program, ...args] = run.argv;
    const child = spawn(program ?? '/bin/sh', args, { cwd: run.cwd, env: run.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let timedOut = false;
    const killGroup = (signal: NodeJS.Signals): void => {
      if (child.pid !== undefined) signalGroup(child.pid, signal);
    };
    const stop = (): void => {
      if (child.pid !== undefined) stopGroup(child.pid, KILL_GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, run.timeoutMs);
    run.signal.addEventListener('abort', stop, { once: true });
    child.stdout.on('data', (chunk: Buffer) => out.add(chunk));
    child.stderr.on('data', (chunk: Buffer) => out.add(chunk));
    const done = (exitCode: number | null, extra = ''): void => {
      clearTimeout(timer);
      run.signal.removeEventListener('abort', stop);
      killGroup('SIGKILL'); // what it left running in its group
      const limit = timedOut ? `\n[localagents: the check was cut at its time limit of ${run.timeoutMs / 1000} s]` : '';
      resolve({
        started_at: startedAt.toISOString(),
        exit_code: timedOut ? null : exitCode,
        duration_ms: Math.round(performance.now() - started),
        output_tail: checkTail(out.text() + extra + limit),
        ...(timedOut ? { timed_out: true } : {}),
      });
    };
    // A background process holding the pipes open must not hold the check up.
    child.on('exit', () => setTimeout(() => killGroup('SIGKILL'), 500).unref());
    child.on('error', (err) => done(null, `\n[localagents: could not run the check: ${err.message}]`));
    child.on('close', (code) => done(code));
  });
}
