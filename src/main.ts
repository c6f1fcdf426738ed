#!/usr/bin/env node
/**
 * The composition root: the only place that reads the process (argv, env,
 * cwd) and decides exit codes. Everything else takes what it needs as input.
 */
import { readFileSync } from 'node:fs';
import type { CliContext } from './cli/context.js';
import { printError } from './cli/output.js';
import { isLocalAgentsError } from './errors.js';
import { createLogger } from './log.js';
import { pathError } from './path-errors.js';

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

async function main(): Promise<number> {
  const ctx: CliContext = { version: packageVersion(), cwd: process.cwd(), env: process.env, log: createLogger(), stdinIsTty: process.stdin.isTTY === true, exitCode: 0 };
  const args = process.argv.slice(2);
  // Claude Code runs exactly this every few hundred milliseconds (its statusLine setting): it skips loading the
  // command-line parser, which alone costs over half of a bare Node start (BENCHMARKS.md, part 9).
  if (args.length === 1 && args[0] === 'statusline') {
    await (await import('./cli/statusline.js')).printStatusLine(ctx, undefined);
    return 0;
  }
  const { buildProgram } = await import('./cli/program.js');
  const program = await buildProgram(ctx, args);
  try {
    await program.parseAsync(process.argv);
    return ctx.exitCode;
  } catch (thrown) {
    const debug = process.env.LOCALAGENTS_LOG === 'debug';
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

process.exitCode = await main();
