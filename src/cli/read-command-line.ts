/**
 * The read commands' own door (BENCHMARKS.md, part 9): `[--config FILE] jobs|show|usage|statusline …`
 * parsed with Node's parseArgs from the commands' descriptions (src/cli/read-command.ts), so
 * a status line that runs every few hundred milliseconds never loads commander or the app.
 * npm run build bundles this module and what it imports into dist/fast/read-commands.cjs.
 * Anything else (--help, other root options, other commands) is commander's: src/cli/run.ts.
 */
import { parseArgs } from 'node:util';
import { JOBS_COMMAND, SHOW_COMMAND } from './commands/jobs.js';
import { STATUSLINE_COMMAND } from './commands/statusline.js';
import { USAGE_COMMAND } from './commands/usage.js';
import type { CliContext } from './context.js';
import { exitCodeFor } from './exit-code.js';
import { optionName, usageError, type ReadCommand, type ReadOptionValues } from './read-command.js';

export { createLogger } from '../log.js';

/** The commands this door reads, by name. */
const READ_COMMANDS: ReadonlyMap<string, ReadCommand> = new Map([JOBS_COMMAND, SHOW_COMMAND, USAGE_COMMAND, STATUSLINE_COMMAND].map((c) => [c.name, c]));

interface ReadInvocation {
  readonly command: ReadCommand;
  readonly configPath: string | undefined;
  /** The arguments after the command's name. */
  readonly rest: readonly string[];
}

/** `[--config FILE | --config=FILE] NAME …` without --help: the command lines this door reads. */
export function readInvocation(args: readonly string[]): ReadInvocation | undefined {
  let configPath: string | undefined;
  let at = 0;
  if (args[0] === '--config' && args.length > 2) [configPath, at] = [args[1], 2];
  else if (args[0]?.startsWith('--config=') === true) [configPath, at] = [args[0].slice('--config='.length), 1];
  const command = READ_COMMANDS.get(args[at] ?? '');
  const rest = args.slice(at + 1);
  if (command === undefined || rest.some((a) => a === '--help' || a === '-h')) return undefined;
  return { command, configPath, rest };
}

function parseRest(command: ReadCommand, rest: readonly string[]): { argument: string | undefined; options: ReadOptionValues } {
  const mistake = (message: string): Error => usageError(`localagents ${command.name}`, message);
  const described = new Map(command.options.map((o) => [optionName(o).name, o]));
  const { tokens } = parseArgs({
    args: [...rest],
    options: Object.fromEntries(command.options.map((o) => [optionName(o).name, { type: optionName(o).value === undefined ? ('boolean' as const) : ('string' as const) }])),
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const options: Record<string, string | true | undefined> = Object.fromEntries(command.options.filter((o) => o.default !== undefined).map((o) => [optionName(o).name, o.default]));
  const operands: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') operands.push(token.value);
    if (token.kind !== 'option') continue;
    const option = described.get(token.name);
    if (option === undefined || !token.rawName.startsWith('--')) throw mistake(`unknown option '${token.rawName}'`);
    const takes = optionName(option).value !== undefined;
    if (!takes) {
      if (token.value !== undefined) throw mistake(`unknown option '${token.rawName}=${token.value}'`);
      options[token.name] = true;
      continue;
    }
    if (token.value === undefined) throw mistake(`option '${option.flags}' argument missing`);
    if (option.choices !== undefined && !option.choices.includes(token.value)) {
      throw mistake(`option '${option.flags}' argument '${token.value}' is invalid. Allowed choices are ${option.choices.join(', ')}.`);
    }
    options[token.name] = token.value;
  }
  const wanted = command.argument === undefined ? 0 : 1;
  if (operands.length < wanted) throw mistake(`missing required argument '${command.argument?.name ?? ''}'`);
  if (operands.length > wanted) throw mistake(`too many arguments for '${command.name}'. Expected ${wanted} argument${wanted === 1 ? '' : 's'} but got ${operands.length}.`);
  return { argument: operands[0], options };
}

/** Runs a read command and returns its exit code, or undefined when `args` is not one (then commander reads them). */
export async function runReadCommand(ctx: CliContext, args: readonly string[]): Promise<number | undefined> {
  const invocation = readInvocation(args);
  if (invocation === undefined) return undefined;
  const { command } = invocation;
  try {
    const { argument, options } = parseRest(command, invocation.rest);
    await command.run(ctx, invocation.configPath, argument, options);
    return ctx.exitCode;
  } catch (thrown) {
    return exitCodeFor(ctx, thrown);
  }
}
