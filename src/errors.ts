/**
 * Every error localagents reports on purpose. Callers match on `code`; the MCP
 * edge turns these into `isError` results, the CLI into one line plus a hint.
 */

export type ErrorCode =
  | 'bad_config'
  | 'bad_argument'
  | 'model_unavailable'
  | 'unknown_job'
  | 'backend_error'
  | 'worktree_failed'
  | 'state_unwritable'
  /** A file or folder localagents keeps is in a shape it cannot use (a file where a folder belongs, garbage JSON, a FIFO). */
  | 'bad_state'
  | 'nested_job'
  | 'internal';

export interface ErrorDetails {
  readonly [key: string]: unknown;
}

export interface LocalAgentsErrorOptions extends ErrorOptions {
  /** What the reader should do next, in one sentence. */
  hint?: string;
  /** Structured facts for machine readers (the MCP caller's `structuredContent`). */
  details?: ErrorDetails;
  /** The same facts worded for a person at a terminal, when `message`/`hint` speak to the calling model. */
  forPerson?: { readonly message: string; readonly hint?: string | undefined };
  /** The facts alone, for a job record that the model and a person both read; by default the person's message. */
  forRecord?: string;
}

export class LocalAgentsError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly details: ErrorDetails;
  /** message and hint for a person (CLI, dashboard); the same as for the model unless worded apart. */
  readonly forPerson: { readonly message: string; readonly hint?: string | undefined };
  /** What a job record stores of this error: no instruction to either audience. */
  readonly forRecord: string;

  constructor(code: ErrorCode, message: string, options: LocalAgentsErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LocalAgentsError';
    this.code = code;
    this.hint = options.hint;
    this.details = options.details ?? {};
    this.forPerson = options.forPerson ?? { message, hint: options.hint };
    this.forRecord = options.forRecord ?? this.forPerson.message;
  }
}

/** A `models.yaml` (or sidecar) that cannot be used; names file, line and key. */
export class ConfigError extends LocalAgentsError {
  readonly file: string;
  readonly line: number | undefined;
  readonly key: string | undefined;

  constructor(file: string, message: string, options: LocalAgentsErrorOptions & { line?: number; key?: string } = {}) {
    super('bad_config', message, {
      ...options,
      details: { file, line: options.line, key: options.key, ...options.details },
    });
    this.name = 'ConfigError';
    this.file = file;
    this.line = options.line;
    this.key = options.key;
  }
}

/** A tool or CLI argument outside what is allowed; names the argument and the allowed values. */
export class BadArgumentError extends LocalAgentsError {
  readonly argument: string;

  constructor(argument: string, message: string, options: LocalAgentsErrorOptions = {}) {
    super('bad_argument', message, { ...options, details: { argument, ...options.details } });
    this.name = 'BadArgumentError';
    this.argument = argument;
  }
}

export function isLocalAgentsError(err: unknown): err is LocalAgentsError {
  return err instanceof LocalAgentsError;
}

/** The message of anything thrown, for places that must report but not crash. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** What a person reads of anything thrown: our errors' person wording (message and hint), else the message. */
export function personWords(err: unknown): { readonly message: string; readonly hint?: string | undefined } {
  return isLocalAgentsError(err) ? err.forPerson : { message: errorMessage(err) };
}

/** A Node system error with this errno `code` (ENOENT, EEXIST, …). */
export function isErrno(err: unknown, code: string): boolean {
  return err instanceof Error && 'code' in err && err.code === code;
}
