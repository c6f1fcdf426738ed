// Run by scripts/build-fast-cli.mjs, as a child with Claude Code's status JSON on stdin and LOCALAGENTS_STATE_DIR
// set to a throwaway state directory: loads dist/fast/read-commands.cjs as dist/main.cjs does, runs each read
// command once so V8 compiles what they run, and writes the code cache beside the bundle.
import { writeFileSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';
import codeCache from '../dist/cli/code-cache.cjs';

const bundle = fileURLToPath(new URL('../dist/fast/read-commands.cjs', import.meta.url));
const { exports: door, script } = codeCache.loadWithCodeCache(bundle);
const ctx = { version: '0.0.0', cwd: process.env.LOCALAGENTS_STATE_DIR, env: process.env, log: door.createLogger(), stdinIsTty: () => false, exitCode: 0 };
for (const args of [['statusline'], ['jobs'], ['jobs', '--all'], ['show', 'last'], ['usage'], ['usage', '--by', 'model', '--json']]) {
  await door.runReadCommand({ ...ctx }, args);
}
writeFileSync(codeCache.codeCacheFile(bundle), script.createCachedData());
