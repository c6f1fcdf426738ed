#!/usr/bin/env node
/**
 * The composition root: the only place that reads the process (argv, env,
 * cwd) and decides exit codes. Everything else takes what it needs as input.
 *
 * The one door of the command line: every command line goes to commander (src/cli/run.ts), and a command
 * loads its own modules only when it runs. `npm run build` bundles this file and all it loads into
 * dist/main.cjs and dist/chunks/ (scripts/bundle-cli.mjs): Node 20 loads a few CommonJS files much faster
 * than the sixty-odd ES modules a status line needs (BENCHMARKS.md, part 9).
 */
import fs = require('node:fs');
import nodeModule = require('node:module');
import path = require('node:path');
import type { CliContext } from './cli/context.js';

// Node ≥ 22.1 keeps the code it compiles on disk for the next start; older Nodes have no such call.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

function packageVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const { createLogger, runCommandLine } = await import('./cli/run.js');
  const context: CliContext = {
    // Read when asked: only the MCP server and --version need it.
    get version() {
      return packageVersion();
    },
    cwd: process.cwd(),
    env: process.env,
    log: createLogger(),
    // node:tty only when asked (the server's intro), and never process.stdin.isTTY: loading either costs a status line more than its own work.
    stdinIsTty: () => process.getBuiltinModule('node:tty').isatty(0),
    exitCode: 0,
  };
  // Claude Code's statusLine setting runs `localagents statusline` every few hundred milliseconds: with no other
  // argument there is nothing to parse, and loading commander would add a fifth of a bare node start (BENCHMARKS.md, part 9).
  if (args.length === 1 && args[0] === 'statusline') {
    await (await import('./cli/statusline.js')).printStatusLine(context, undefined);
    return context.exitCode;
  }
  return runCommandLine(context, args);
}

void main().then((code) => {
  process.exitCode = code;
});
