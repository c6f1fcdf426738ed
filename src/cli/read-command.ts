/**
 * The read commands (`jobs`, `show`, `usage`, `statusline`) as data: their
 * arguments, options, help and action. People and Claude Code's status line run
 * them all day, so they are parsed without commander (src/cli/read-command-line.ts,
 * Node's own parseArgs), and the same description gives them to commander for
 * --help and for a command line only commander reads (src/cli/program.ts).
 */
import { BadArgumentError } from '../errors.js';
import type { CliContext } from './context.js';

export interface ReadOption {
  /** `--all`, or `--by <grouping>` for an option that takes a value: commander's notation, also shown in errors. */
  readonly flags: string;
  readonly description: string;
  readonly choices?: readonly string[];
  readonly default?: string;
}

/** What the action gets: the option values by long name (`true` for a flag), every option with a default set. */
export type ReadOptionValues = Readonly<Record<string, string | true | undefined>>;

export interface ReadCommand {
  readonly name: string;
  readonly description: string;
  /** The one operand the command takes, if any: `show JOB`. */
  readonly argument?: { readonly name: string; readonly description: string };
  readonly options: readonly ReadOption[];
  /** Shown after the options by --help. */
  readonly helpAfter: string;
  run(ctx: CliContext, configPath: string | undefined, argument: string | undefined, options: ReadOptionValues): Promise<void>;
}

/** `--by <grouping>` → { name: 'by', value: 'grouping' }. */
export function optionName(option: ReadOption): { readonly name: string; readonly value: string | undefined } {
  const [long = '', value] = option.flags.split(' ');
  return { name: long.replace(/^--/, ''), value: value?.replace(/^<|>$/g, '') };
}

/** A usage mistake (`localagents jobs` for `commandLine`) as both doors word it: one line, then where the help is. */
export function usageError(commandLine: string, message: string): BadArgumentError {
  return new BadArgumentError('usage', message, { hint: `${commandLine} --help shows the options and examples.` });
}
