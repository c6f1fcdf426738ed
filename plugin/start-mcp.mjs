#!/usr/bin/env node
// Starts the localagents MCP server (stdio) for the Claude Code plugin: the
// single-file bundle next to this file (`npm run bundle`), so a plugin installed
// from git needs no npm step. stdout is the MCP channel. When the server cannot
// start, the FIRST stderr line says why: that is the line Claude Code's /mcp shows.
import { existsSync, readFileSync } from 'node:fs';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';

const bundle = fileURLToPath(new URL('localagents.mjs', import.meta.url));
const hold = fileURLToPath(new URL('stdio-hold.mjs', import.meta.url));
const [major, minor] = process.versions.node.split('.').map(Number);

function cannotStart(why, fix) {
  process.stderr.write(`localagents cannot start: ${why}\n${fix}\n`);
  process.exit(1);
}

if (major < 20 || (major === 20 && minor < 19)) {
  cannotStart(`Node ${process.versions.node} is too old (${process.execPath}); localagents needs Node 20.19 or later`, 'Install a newer Node, make it the first `node` on PATH, and restart Claude Code.');
}
for (const file of [bundle, hold]) {
  if (!existsSync(file)) {
    cannotStart(`${file} is missing (an incomplete plugin copy)`, 'Reinstall the plugin: /plugin uninstall localagents@localagents, then /plugin install localagents@localagents.');
  }
}
try {
  // Claude Code gives a stdio server 3 s to answer its server/discover probe, and loading the bundle can take
  // longer: a small file answers it first (src/mcp/tasks/stdio-hold.ts), then the bundle takes over stdin.
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  await (await import(new URL('stdio-hold.mjs', import.meta.url).href)).holdStdio(version ?? '0.0.0');
  await import(new URL('localagents.mjs', import.meta.url).href);
} catch (err) {
  cannotStart(`${err instanceof Error ? err.message : String(err)}`, `The server bundle ${bundle} failed to load; reinstall the plugin, and report this if it persists.`);
}
