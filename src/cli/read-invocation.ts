/**
 * Which command line the read commands' own door takes (src/cli/read-command-line.ts):
 * `[--config FILE | --config=FILE] NAME …` without --help. Its own module, so main.ts
 * can tell before it loads either door.
 */
export const READ_COMMAND_NAMES = ['jobs', 'show', 'usage', 'statusline'] as const;
export type ReadCommandName = (typeof READ_COMMAND_NAMES)[number];

export interface ReadInvocation {
  readonly name: ReadCommandName;
  readonly configPath: string | undefined;
  /** The arguments after the command's name. */
  readonly rest: readonly string[];
}

const isReadCommandName = (name: string | undefined): name is ReadCommandName => (READ_COMMAND_NAMES as readonly (string | undefined)[]).includes(name);

export function readInvocation(args: readonly string[]): ReadInvocation | undefined {
  let configPath: string | undefined;
  let at = 0;
  if (args[0] === '--config' && args.length > 2) [configPath, at] = [args[1], 2];
  else if (args[0]?.startsWith('--config=') === true) [configPath, at] = [args[0].slice('--config='.length), 1];
  const name = args[at];
  const rest = args.slice(at + 1);
  if (!isReadCommandName(name) || rest.some((a) => a === '--help' || a === '-h')) return undefined;
  return { name, configPath, rest };
}
