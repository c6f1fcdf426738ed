#!/usr/bin/env node
// Starts the localagents MCP server (stdio) for the Claude Code plugin, from
// wherever the plugin lives: the built dist/main.js when there is one (an npm
// install, or a checkout after `npm run build`), else src/main.ts through tsx
// (a git checkout where Claude Code ran `npm ci --ignore-scripts`, so nothing
// was built). stdout is the MCP channel: messages go to stderr only.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = join(root, 'dist', 'main.js');

if (existsSync(built)) {
  await import(pathToFileURL(built).href);
} else {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    process.stderr.write(
      `localagents: ${built} is not built and tsx is not installed there.\n` +
        `Fix: cd ${root} && npm ci && npm run build — then restart Claude Code.\n`,
    );
    process.exit(1);
  }
  register();
  await import(pathToFileURL(join(root, 'src', 'main.ts')).href);
}
