// Part of `npm run build`: dist/fast/, the read commands' code as one bundle of this package's own modules, so
// `statusline`, `jobs`, `show` and `usage` load a handful of files instead of some sixty (Node 20 has no compile
// cache; its loader costs per module file: BENCHMARKS.md, part 9). main.ts runs those four from it. The entry is
// src/cli/run.ts, the same code dist/cli/run.js is built from; the other commands and the server, which
// src/cli/program.ts loads on demand, stay imports of dist/'s modules, and npm dependencies stay imports too.
// Split at each dynamic import kept, so what a command loads only when it must (models.yaml's loader) stays apart.
import { rmSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath, URL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = fileURLToPath(new URL('../dist/fast/', import.meta.url));
const program = fileURLToPath(new URL('../src/cli/program.ts', import.meta.url));
/** The command modules program.ts loads that are bundled: the read commands'. */
const BUNDLED_COMMANDS = new Set(['./commands/jobs.js', './commands/usage.js', './commands/statusline.js']);

const otherCommandsFromDist = {
  name: 'other-commands-from-dist',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== 'dynamic-import' || args.importer !== program || BUNDLED_COMMANDS.has(args.path)) return undefined;
      // dist/cli/<path> as seen from dist/fast/.
      return { path: `./${relative(outdir, fileURLToPath(new URL(args.path, new URL('../dist/cli/', import.meta.url))))}`, external: true };
    });
  },
};

rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { run: fileURLToPath(new URL('../src/cli/run.ts', import.meta.url)) },
  absWorkingDir: root,
  bundle: true,
  splitting: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  outdir,
  plugins: [otherCommandsFromDist],
  logLevel: 'warning',
});
