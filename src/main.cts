#!/usr/bin/env node
/**
 * The composition root: the only place that reads the process (argv, env,
 * cwd) and decides exit codes. Everything else takes what it needs as input.
 *
 * A CommonJS file, the package's bin: Node starts one some 4 ms sooner than an
 * ES module, a sixth of what a status line may spend (BENCHMARKS.md, part 9).
 */
import fs = require('node:fs');
import path = require('node:path');
import codeCache = require('./cli/code-cache.cjs');
import type { CliContext } from './cli/context.js';
import type { Logger } from './log.js';

function packageVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

type ReadCommandLine = typeof import('./cli/read-command-line.js');

/**
 * The read commands a status line or a person runs all day (`statusline`, `jobs`, `show`, `usage`) come from
 * one CommonJS bundle `npm run build` makes (dist/fast/), with a code cache: Node loads that much faster than
 * some sixty ES modules (BENCHMARKS.md, part 9).
 */
async function readCommandLine(): Promise<ReadCommandLine> {
  try {
    return codeCache.loadWithCodeCache(path.join(__dirname, 'fast', 'read-commands.cjs')).exports as ReadCommandLine;
  } catch (err) {
    // Run from the plugin's one file, which has no dist/fast/: the same code, from its modules.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    return import('./cli/read-command-line.js');
  }
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  // What commander's -V/--version prints, without loading commander.
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  // node:tty only when asked (the server's intro), and never process.stdin.isTTY: loading either costs a status line more than its own work.
  const stdinIsTty = (): boolean => process.getBuiltinModule('node:tty').isatty(0);
  const context = (log: Logger): CliContext => ({
    // Read when asked: only the MCP server and commander's --version need it.
    get version() {
      return packageVersion();
    },
    cwd: process.cwd(),
    env: process.env,
    log,
    stdinIsTty,
    exitCode: 0,
  });
  // The read commands' door answers first, and says when a command line is not its own; then commander reads it.
  // Each side has its own logger: it redacts the secrets that side's modules learn (src/secrets/redact.ts).
  const read = await readCommandLine();
  const code = await read.runReadCommand(context(read.createLogger()), args);
  if (code !== undefined) return code;
  const commandLine = await import('./cli/run.js');
  return commandLine.runCommandLine(context(commandLine.createLogger()), args);
}

void main().then((code) => {
  process.exitCode = code;
});
