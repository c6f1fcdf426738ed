/**
 * The command line once main.cts has read the process: commander reads every
 * command line (src/cli/program.ts), and the one catch turns an error into a
 * line and an exit code.
 */
import type { CliContext } from './context.js';
import { exitCodeFor } from './exit-code.js';

export { createLogger } from '../log.js';

export async function runCommandLine(ctx: CliContext, args: readonly string[]): Promise<number> {
  const { buildProgram } = await import('./program.js');
  const program = await buildProgram(ctx, args);
  try {
    await program.parseAsync([...args], { from: 'user' });
    return ctx.exitCode;
  } catch (thrown) {
    return exitCodeFor(ctx, thrown);
  }
}
