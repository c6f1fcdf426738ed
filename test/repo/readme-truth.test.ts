/**
 * The README names commands, options, MCP tools and their arguments, and
 * models.yaml keys. Each one must exist — read from the real commander
 * program, the built server's tool list over the official MCP client, and the
 * config schema — and each that exists must be in the README. Failures say
 * which README line to fix, or which row to add.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { objectShape, unwrapSchema } from '../../src/config/describe-schema.js';
import { configFileSchema } from '../../src/config/schema.js';
import { silentLogger } from '../../src/log.js';
import { connect, makeDirs, writeConfig, type Connected } from '../e2e/harness.js';
import { commandLines, configKeyMentions, namesInCell, sectionOptions, tableRows, toolCallMentions, yamlBlocks } from './readme-claims.js';

const README_PATH = path.resolve(import.meta.dirname, '..', '..', 'README.md');
const README = readFileSync(README_PATH, 'utf8');
const ROOT_COMMAND = 'localagents';

/** Command name (the root as `localagents`) → every option spelling it accepts. */
async function cliOptions(): Promise<Map<string, Set<string>>> {
  // `--help` makes the program load every command module, as `localagents --help` lists them all.
  const program = await buildProgram({ version: '0.0.0', cwd: process.cwd(), env: {}, log: silentLogger, stdinIsTty: () => false, exitCode: 0 }, ['--help']);
  const spellings = (command: Command): Set<string> =>
    new Set(['--help', '-h', ...command.options.flatMap((o) => [o.long, o.short].filter((f): f is string => f !== undefined))]);
  return new Map([[ROOT_COMMAND, spellings(program)], ...program.commands.map((c): [string, Set<string>] => [c.name(), spellings(c)])]);
}

/** Long options only: what the reference table must list. */
function longOptions(options: ReadonlySet<string>): string[] {
  return [...options].filter((o) => o.startsWith('--') && o !== '--help');
}

/** Every key path a models.yaml may hold, records written as `<name>`; maps of strings (env) are one key. */
function configKeys(schema: z.ZodType, prefix = ''): string[] {
  const inner = unwrapSchema(schema);
  if (inner instanceof z.ZodObject) return Object.entries(objectShape(inner)).flatMap(([k, v]) => (v === undefined ? [] : configKeys(v, `${prefix}${k}.`)));
  if (inner instanceof z.ZodRecord && unwrapSchema(inner.valueType as z.ZodType) instanceof z.ZodObject) return configKeys(inner.valueType as z.ZodType, `${prefix}<name>.`);
  return [prefix.slice(0, -1)];
}

function report(problems: readonly string[]): string {
  return `README.md is out of step with the code (${problems.length}):\n${problems.map((p) => `  ${p}`).join('\n')}`;
}

/** The flags a table cell lists: `--isolation none|worktree` gives --isolation, `-n`, `--lines <n>` both. */
function optionsInCell(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].flatMap((m) => [...(m[1] ?? '').matchAll(/(?:^|[\s,/])(--?[a-z][\w-]*)/g)].map((o) => o[1] ?? ''));
}

/** What is wrong with each `localagents …` line of `markdown`: an unknown command, or an option its command lacks. */
function commandLineProblems(markdown: string, options: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const commands = new Set([...options.keys(), 'help']);
  const problems: string[] = [];
  for (const { line, value: words } of commandLines(markdown)) {
    let command = ROOT_COMMAND;
    for (const [i, word] of words.entries()) {
      if (word.startsWith('-') && word !== '-') {
        const option = word.split('=')[0] ?? word;
        const known = options.get(command) ?? new Set<string>();
        if (!known.has(option)) problems.push(`README.md:${line}: \`localagents ${words.join(' ')}\`: ${command === ROOT_COMMAND ? 'localagents' : `localagents ${command}`} has no option ${option} (it has ${[...known].join(', ')})`);
      } else if (command === ROOT_COMMAND && i === words.findIndex((w) => !w.startsWith('-')) && /^[a-z][a-z-]*$/.test(word) && !(words[i - 1] ?? '').startsWith('--')) {
        if (commands.has(word)) command = word;
        else problems.push(`README.md:${line}: \`localagents ${words.join(' ')}\`: there is no command "${word}" (commands: ${[...commands].filter((c) => c !== ROOT_COMMAND).join(', ')})`);
      }
    }
  }
  return problems;
}

const CLI_OPTIONS = await cliOptions();

describe('README: the command line', () => {
  const options = CLI_OPTIONS;
  const commands = new Set([...options.keys(), 'help']);
  const table = tableRows(README, 'command').map((row) => ({ line: row.line, command: (row.value[0] ?? '').replace(/`/g, '').replace(/^localagents ?/, '').split(/\s+/)[0] || ROOT_COMMAND, options: optionsInCell(row.value[1] ?? '') }));

  it('every localagents command line names a real command and only its options', () => {
    const problems = commandLineProblems(README, options);
    expect(problems, report(problems)).toEqual([]);
  });

  it('a README line naming an option or command that does not exist is caught, with the fix', () => {
    const made = '```sh\nlocalagents jobs --all --since 1d   # newest first\nlocalagents remove JOB\n```\nOr `localagents run --isolation worktree "Add a --verbose flag"`.\n';
    expect(commandLineProblems(made, options)).toEqual([
      'README.md:2: `localagents jobs --all --since 1d`: localagents jobs has no option --since (it has --help, -h, --all, --json)',
      expect.stringMatching(/^README\.md:3: `localagents remove JOB`: there is no command "remove" \(commands: mcp, models, /),
    ]);
  });

  it("options written in a command's own section belong to that command", () => {
    const problems = sectionOptions(README, commands)
      .filter(({ value }) => !value.commands.some((c) => options.get(c)?.has(value.option) === true))
      .map(({ line, value }) => `README.md:${line}: \`${value.option}\` is not an option of ${value.commands.map((c) => `localagents ${c}`).join(' or ')} (this section's heading names it)`);
    expect(problems, report(problems)).toEqual([]);
  });

  it('the command table lists every command with exactly its options', () => {
    expect(table.length, 'README.md has no table whose first column is "command"').toBeGreaterThan(0);
    const problems: string[] = [];
    for (const row of table) {
      const real = options.get(row.command);
      if (real === undefined) {
        problems.push(`README.md:${row.line}: the command table names "${row.command}", which is not a command`);
        continue;
      }
      for (const o of row.options) if (!real.has(o)) problems.push(`README.md:${row.line}: the command table gives ${row.command} the option ${o}, which it does not have`);
      for (const o of longOptions(real)) if (!row.options.includes(o)) problems.push(`README.md:${row.line}: add ${o} to the options of ${row.command} in the command table`);
    }
    for (const command of options.keys()) if (!table.some((r) => r.command === command)) problems.push(`README.md: the command table has no row for ${command === ROOT_COMMAND ? 'localagents' : `localagents ${command}`}; add one with its options`);
    expect(problems, report(problems)).toEqual([]);
  });
});

describe('README: the MCP tools (from the built server, over the official MCP client)', () => {
  let server: Connected;
  let tools: Map<string, Set<string>>;
  beforeAll(async () => {
    const dirs = makeDirs();
    writeConfig(dirs, 'endpoints: {}\n');
    server = await connect(dirs);
    const listed = await server.client.listTools();
    tools = new Map(listed.tools.map((t) => [t.name, new Set(Object.keys(t.inputSchema.properties ?? {}))]));
  }, 60_000);
  afterAll(async () => {
    await server.close();
  });

  it('the tool table lists every tool with exactly its arguments', () => {
    const rows = tableRows(README, 'tool');
    expect(rows.length, 'README.md has no table whose first column is "tool"').toBeGreaterThan(0);
    const problems: string[] = [];
    const named = new Set<string>();
    for (const { line, value } of rows) {
      const args = namesInCell(value[1] ?? '');
      for (const tool of namesInCell(value[0] ?? '')) {
        named.add(tool);
        const real = tools.get(tool);
        if (real === undefined) {
          problems.push(`README.md:${line}: the tool table names ${tool}, which the server does not have (tools: ${[...tools.keys()].join(', ')})`);
          continue;
        }
        for (const a of args) if (!real.has(a)) problems.push(`README.md:${line}: ${tool} has no argument ${a}`);
        for (const a of real) if (!args.includes(a)) problems.push(`README.md:${line}: add the argument ${a} to ${tool}'s row of the tool table`);
      }
    }
    for (const tool of tools.keys()) if (!named.has(tool)) problems.push(`README.md: the tool table has no row for ${tool}; add one with its arguments`);
    expect(problems, report(problems)).toEqual([]);
  });

  it('every tool call written as tool(argument=…) names a real tool and argument', () => {
    const problems = toolCallMentions(README)
      .filter(({ value }) => tools.get(value.tool)?.has(value.argument) !== true)
      .map(({ line, value }) => `README.md:${line}: ${value.tool}(${value.argument}=…): ${tools.has(value.tool) ? `${value.tool} has no argument ${value.argument}` : `there is no tool ${value.tool}`}`);
    expect(problems, report(problems)).toEqual([]);
  });
});

describe('README: models.yaml keys (from the config schema)', () => {
  const keys = configKeys(configFileSchema);
  const isKeyOrParent = (k: string): boolean => keys.some((real) => real === k || real.startsWith(`${k}.`));
  const normalise = (k: string): string => k.replace(/^(endpoints|models)\.[^.]+/, '$1.<name>');
  const tableKeys = tableRows(README, 'key').flatMap(({ line, value }) => namesInCell(value[0] ?? '').map((key) => ({ line, key })));

  it('every key the README names is in the schema', () => {
    const named = [...tableKeys.map(({ line, key }) => ({ line, value: key })), ...configKeyMentions(README)];
    const problems = named.filter(({ value }) => !isKeyOrParent(normalise(value))).map(({ line, value }) => `README.md:${line}: \`${value}\` is not a models.yaml key (the schema is src/config/schema.ts)`);
    expect(problems, report(problems)).toEqual([]);
  });

  it('the key table lists every key of the schema', () => {
    expect(tableKeys.length, 'README.md has no table whose first column is "key"').toBeGreaterThan(0);
    const listed = new Set(tableKeys.map(({ key }) => normalise(key)));
    const problems = keys.filter((k) => !listed.has(k)).map((k) => `README.md: the models.yaml key table has no row for \`${k}\`; add it (and say what it means)`);
    expect(problems, report(problems)).toEqual([]);
  });

  it('every YAML example is a valid models.yaml', () => {
    const problems = yamlBlocks(README).flatMap(({ line, value }) => {
      const parsed = configFileSchema.safeParse(parseYaml(value));
      return parsed.success ? [] : [`README.md:${line}: this models.yaml example does not load: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`];
    });
    expect(problems, report(problems)).toEqual([]);
  });
});
