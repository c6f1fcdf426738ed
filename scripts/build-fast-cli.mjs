// Part of `npm run build`: dist/fast/read-commands.cjs, the read commands' door (src/cli/read-command-line.ts) and
// this package's modules it imports as one CommonJS file, which main.ts loads for `statusline`, `jobs`, `show` and
// `usage`: Node 20 loads one CommonJS file much faster than the same code as some sixty ES modules (it has no
// compile cache; BENCHMARKS.md, part 9). npm dependencies stay require()s, and what a command loads only when it
// must (models.yaml's loader, with zod and yaml) stays behind esbuild's lazy module init, so it costs only when used.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import process from 'node:process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinModules } from 'node:module';
import { fileURLToPath, URL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = fileURLToPath(new URL('../dist/fast/', import.meta.url));

/**
 * Node's own modules that take a status line a millisecond or two each to load (crypto, child_process, …) but that
 * most runs never call: each import becomes an object of getters that loads the module at its first use. The
 * modules every run uses anyway (fs, path, …) are already loaded by Node itself and stay plain require()s.
 */
const LOADED_AT_START = new Set(['fs', 'fs/promises', 'path', 'os', 'util', 'url', 'events', 'buffer', 'timers', 'timers/promises', 'module']);
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(plugin) {
    plugin.onResolve({ filter: /^node:/ }, (args) => {
      // The getters' own require() is the real module.
      if (args.namespace === 'lazy-builtin') return { path: args.path, external: true };
      const name = args.path.slice('node:'.length);
      if (LOADED_AT_START.has(name) || !builtinModules.includes(name)) return undefined;
      return { path: name, namespace: 'lazy-builtin' };
    });
    plugin.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, async (args) => {
      const names = Object.keys(await import(`node:${args.path}`)).filter((n) => n !== 'default' && /^[A-Za-z_$][\w$]*$/.test(n));
      const getters = names.map((n) => `  get ${n}() { return load().${n}; },`).join('\n');
      return { loader: 'js', contents: `let loaded;\nconst load = () => (loaded ??= require('node:${args.path}'));\nmodule.exports = {\n${getters}\n};\n` };
    });
  },
};

rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { 'read-commands': fileURLToPath(new URL('../src/cli/read-command-line.ts', import.meta.url)) },
  absWorkingDir: root,
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  target: 'node20.19',
  outdir,
  logLevel: 'warning',
  plugins: [lazyBuiltins],
});

// Its code cache (src/cli/code-cache.cts): each read command run once, in a child with a throwaway state directory
// and Claude Code's status JSON on stdin, so the build's own stdin and state are never read.
const state = mkdtempSync(join(tmpdir(), 'localagents-build-'));
try {
  const warm = spawnSync(process.execPath, [fileURLToPath(new URL('warm-read-commands.mjs', import.meta.url))], {
    input: JSON.stringify({ session_id: 'build', cwd: state, workspace: { current_dir: state, project_dir: state } }),
    env: { PATH: process.env.PATH ?? '', HOME: state, LOCALAGENTS_STATE_DIR: state },
    encoding: 'utf8',
  });
  if (warm.status !== 0) throw new Error(`warming the read commands' code cache failed (exit ${warm.status}): ${warm.stderr}`);
} finally {
  rmSync(state, { recursive: true, force: true });
}
