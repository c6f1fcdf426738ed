/** What main.ts hands every command: the process facts it read, and where to put the exit code. */
import type { Logger } from '../log.js';

export interface CliContext {
  readonly version: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: Logger;
  /** stdin is a terminal: a person typed the command (Claude Code starts the server with pipes). Asked only when needed. */
  readonly stdinIsTty: () => boolean;
  /** Set by an action to the process exit code. */
  exitCode: number;
}

/** The global options every subcommand can read from the root command. */
export interface GlobalOptions {
  readonly config?: string;
}
