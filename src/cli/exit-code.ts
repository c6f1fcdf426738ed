/** The one catch of the command line: an error becomes a line (never a stack trace unless asked for) and an exit code. */
import { isLocalAgentsError } from '../errors.js';
import { pathError } from '../path-errors.js';
import type { CliContext } from './context.js';
import { printError } from './output.js';

export function exitCodeFor(ctx: CliContext, thrown: unknown): number {
  const debug = ctx.env.LOCALAGENTS_LOG === 'debug';
  const err = isLocalAgentsError(thrown) ? thrown : (pathError(thrown) ?? thrown);
  if (isLocalAgentsError(err)) {
    printError(err.forPerson.message, err.forPerson.hint);
    if (debug && err.stack) process.stderr.write(`${err.stack}\n`);
    return err.code === 'bad_argument' ? 2 : 1;
  }
  printError(err instanceof Error ? err.message : String(err), debug ? undefined : 'Run with LOCALAGENTS_LOG=debug for the stack trace.');
  if (debug && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  return 1;
}
