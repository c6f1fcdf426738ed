#!/usr/bin/env node
/**
 * The composition root: the only place that reads the process (argv, env,
 * cwd) and decides exit codes. Everything else takes what it needs as input.
 */
import { readFileSync } from 'node:fs';
import type { CliContext } from './cli/context.js';
import { createLogger } from './log.js';

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

/**
 * The read commands a status line or a person runs all day: loaded from one bundle (dist/fast/, made by
 * `npm run build`) instead of some sixty modules, when named first or right after --config (BENCHMARKS.md, part 9).
 */
const BUNDLED = new Set(['statusline', 'jobs', 'show', 'usage']);
/** Not a literal, so the plugin bundle (scripts/bundle.mjs), which has no dist/fast beside it, leaves it alone. */
const BUNDLE = './fast/run.js';

type CommandLine = typeof import('./cli/run.js');

async function commandLine(args: readonly string[]): Promise<CommandLine> {
  const command = args[0] === '--config' ? args[2] : args[0];
  if (command !== undefined && BUNDLED.has(command)) {
    try {
      return (await import(BUNDLE)) as CommandLine;
    } catch (err) {
      // Run from src/ (tsx) or from the plugin's one file: the same code, from its modules.
      if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    }
  }
  return import('./cli/run.js');
}

async function main(): Promise<number> {
  const ctx: CliContext = { version: packageVersion(), cwd: process.cwd(), env: process.env, log: createLogger(), stdinIsTty: process.stdin.isTTY === true, exitCode: 0 };
  const args = process.argv.slice(2);
  return (await commandLine(args)).runCommandLine(ctx, args);
}

process.exitCode = await main();
