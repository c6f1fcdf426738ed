// Part of `npm run build`: dist/fast/read-commands.cjs, the read commands' door (src/cli/read-command-line.ts) and
// this package's modules it imports as one CommonJS file, which main.ts loads for `statusline`, `jobs`, `show` and
// `usage`: Node 20 loads one CommonJS file much faster than the same code as some sixty ES modules (it has no
// compile cache; BENCHMARKS.md, part 9). npm dependencies stay require()s, and what a command loads only when it
// must (models.yaml's loader, with zod and yaml) stays behind esbuild's lazy module init, so it costs only when used.
import { rmSync } from 'node:fs';
import { fileURLToPath, URL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = fileURLToPath(new URL('../dist/fast/', import.meta.url));

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
});
