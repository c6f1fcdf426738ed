/**
 * The CLI's only door to the terminal. Everything else in src/ writes to the
 * logger (stderr) or returns data; the live job display writes through a
 * `Terminal` so it can be driven and tested without a real one. Every text is
 * redacted on its way out, and its control characters escaped (it quotes model
 * servers and models: an ESC sequence there must show, not act).
 */
import { writeSync } from 'node:fs';
import { isErrno } from '../errors.js';
import { printableLines } from '../printable.js';
import { redactDeep, redactSecrets } from '../secrets/redact.js';

let stdoutStream = false;
let readerGone = false;

/**
 * Text to stdout with write(2) itself, not through process.stdout: making that stream loads node:net for a pipe,
 * ~2 ms of a status line's start (BENCHMARKS.md, part 9). Every CLI write to stdout comes here, so their order
 * holds. A reader that went away (EPIPE) gets nothing more; a descriptor that takes no write now (EAGAIN: left
 * non-blocking by another program) gets this and every later text through the stream, which waits for it.
 */
function writeStdout(text: string): void {
  if (readerGone) return;
  if (stdoutStream) {
    process.stdout.write(text);
    return;
  }
  const bytes = Buffer.from(text, 'utf8');
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(1, bytes, written);
  } catch (err) {
    if (isErrno(err, 'EPIPE') || isErrno(err, 'EIO')) {
      readerGone = true;
      return;
    }
    if (!isErrno(err, 'EAGAIN')) throw err;
    stdoutStream = true;
    // A closed terminal (SIGHUP, a dead pipe) must not crash the process that hosts a job.
    process.stdout.on('error', () => {
      readerGone = true;
    });
    process.stdout.write(bytes.subarray(written));
  }
}

export function print(text: string): void {
  writeStdout(printableLines(redactSecrets(text.endsWith('\n') ? text : `${text}\n`)));
}

/** Keys already converted: a report's 366 rows repeat the same thirty keys. */
const snakeKeys = new Map<string, string>();

/** camelCase → snake_case for identifier-like keys; ids and paths (with '/', '.', ':' or '-') stay as they are. */
function snakeKey(key: string): string {
  let snake = snakeKeys.get(key);
  if (snake === undefined) {
    snake = /^[a-z][a-zA-Z0-9]*$/.test(key) ? key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : key;
    snakeKeys.set(key, snake);
  }
  return snake;
}

/** Every --json output uses snake_case keys, whatever shape the service returned. */
export function snakeCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeCaseKeys);
  if (value === null || typeof value !== 'object') return value;
  // No prototype: a key named __proto__ is a key like any other.
  const snake: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(value)) snake[snakeKey(key)] = snakeCaseKeys((value as Record<string, unknown>)[key]);
  return snake;
}

export function printJson(value: unknown): void {
  writeStdout(`${JSON.stringify(redactDeep(snakeCaseKeys(value)), null, 2)}\n`);
}

export function printError(message: string, hint?: string): void {
  process.stderr.write(printableLines(redactSecrets(`error: ${message}\n${hint ? `${hint}\n` : ''}`)));
}

/** A side remark for a human (stderr), so stdout stays what a script parses. */
export function printNote(text: string): void {
  process.stderr.write(printableLines(redactSecrets(text.endsWith('\n') ? text : `${text}\n`)));
}

export interface Terminal {
  /** stdout is a terminal: redraw is possible. */
  readonly isTty: boolean;
  /** stdin and stdout are both terminals: a question can be asked and answered with one key. */
  readonly interactive: boolean;
  /** Width in columns; 80 when unknown. */
  columns(): number;
  /** Raw text, no newline added. */
  write(text: string): void;
  /** One key press in raw mode; undefined when stdin is not a terminal, ends, or `signal` aborts. */
  readKey(signal?: AbortSignal): Promise<string | undefined>;
}

export function processTerminal(): Terminal {
  const stdin = process.stdin;
  const stdout = process.stdout;
  return {
    isTty: stdout.isTTY,
    interactive: stdout.isTTY && stdin.isTTY,
    columns: () => (stdout.isTTY && stdout.columns > 0 ? stdout.columns : 80),
    write: (text) => writeStdout(redactSecrets(text)),
    readKey(signal) {
      if (!stdin.isTTY || signal?.aborted) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        const done = (key: string | undefined): void => {
          signal?.removeEventListener('abort', onAbort);
          stdin.off('data', onData);
          stdin.off('end', onEnd);
          stdin.setRawMode(false);
          stdin.pause();
          resolve(key);
        };
        const onData = (data: Buffer): void => done(data.toString('utf8'));
        const onEnd = (): void => done(undefined);
        const onAbort = (): void => done(undefined);
        signal?.addEventListener('abort', onAbort, { once: true });
        stdin.setRawMode(true);
        stdin.on('data', onData);
        stdin.once('end', onEnd);
        stdin.resume();
      });
    },
  };
}
