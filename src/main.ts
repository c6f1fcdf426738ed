#!/usr/bin/env node
/**
 * The composition root: the only place that reads the process (argv, env,
 * cwd) and decides exit codes. Everything else takes what it needs as input.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isatty } from 'node:tty';
import type { CliContext } from './cli/context.js';
import { readInvocation } from './cli/read-invocation.js';
import type { Logger } from './log.js';

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

type ReadCommandLine = typeof import('./cli/read-command-line.js');

/**
 * The read commands a status line or a person runs all day (`statusline`, `jobs`, `show`, `usage`) come from
 * one CommonJS bundle `npm run build` makes (dist/fast/), which Node loads faster than some sixty ES modules
 * (BENCHMARKS.md, part 9). Not a literal, so the plugin's one-file bundle (scripts/bundle.mjs) leaves it alone.
 */
const READ_COMMANDS_BUNDLE = './fast/read-commands.cjs';

async function readCommandLine(): Promise<ReadCommandLine> {
  try {
    return createRequire(import.meta.url)(READ_COMMANDS_BUNDLE) as ReadCommandLine;
  } catch (err) {
    // Run from src/ (tsx) or from the plugin's one file: the same code, from its modules.
    if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
    return import('./cli/read-command-line.js');
  }
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  // isatty, not process.stdin.isTTY: making the stdin stream costs the status line more than its own work.
  const context = (log: Logger): CliContext => ({ version: packageVersion(), cwd: process.cwd(), env: process.env, log, stdinIsTty: isatty(0), exitCode: 0 });
  // Each side's own logger: it redacts the secrets that side's modules learn (src/secrets/redact.ts).
  if (readInvocation(args) !== undefined) {
    const read = await readCommandLine();
    const code = await read.runReadCommand(context(read.createLogger()), args);
    if (code !== undefined) return code;
  }
  const commandLine = await import('./cli/run.js');
  return commandLine.runCommandLine(context(commandLine.createLogger()), args);
}

process.exitCode = await main();
