/**
 * The command line once main.ts has read the process: the status line's shortcut,
 * the parser, and the one catch that turns an error into a line and an exit code.
 * Run from its module (dist/cli/run.js) or, for the read commands, from the
 * bundle `npm run build` makes of it (dist/fast/run.js): the same code either way.
 */
import type { CliContext } from './context.js';
import { printError } from './output.js';
import { isLocalAgentsError } from '../errors.js';
import { pathError } from '../path-errors.js';

export async function runCommandLine(ctx: CliContext, args: readonly string[]): Promise<number> {
  // Claude Code runs exactly this every few hundred milliseconds (its statusLine setting): it skips loading the
  // command-line parser, which alone costs over half of a bare Node start (BENCHMARKS.md, part 9).
  if (args.length === 1 && args[0] === 'statusline') {
    await (await import('./statusline.js')).printStatusLine(ctx, undefined);
    return 0;
  }
  const { buildProgram } = await import('./program.js');
  const program = await buildProgram(ctx, args);
  try {
    await program.parseAsync([...args], { from: 'user' });
    return ctx.exitCode;
  } catch (thrown) {
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
}
