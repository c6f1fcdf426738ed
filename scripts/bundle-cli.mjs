// Part of `npm run build`, after tsc: the command line as dist/main.cjs (the package's bin) and dist/chunks/, one
// CommonJS file per group of modules that load together. A command loads only the chunks it imports: the status
// line a few files, not the sixty-odd ES modules tsc writes, which Node 20 loads one by one at several times the
// cost (BENCHMARKS.md, part 9). npm packages stay require()s. Everything a process runs comes from these files, so
// each module exists once in it. The chunks sit one folder down, as tsc's files do: src/dashboard/asset-files.ts
// finds src/dashboard/public/ from its own place.
import { rmSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { fileURLToPath, URL } from 'node:url';
import { build } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = fileURLToPath(new URL('../dist/', import.meta.url));

rmSync(fileURLToPath(new URL('chunks/', `file://${dist}`)), { recursive: true, force: true });
await build({
  cwd: root,
  input: { main: 'src/main.cts' },
  platform: 'node',
  // Node's modules and npm packages: anything not a path.
  external: (id) => !id.startsWith('.') && !isAbsolute(id),
  logLevel: 'warn',
  output: {
    dir: dist,
    format: 'cjs',
    entryFileNames: '[name].cjs',
    chunkFileNames: 'chunks/[name]-[hash].cjs',
    comments: false,
    // What the commands a status line or a person runs all day (statusline, jobs, show, usage) read and word, and
    // everything that imports, in one file; their commander wiring stays apart, as the status line needs none.
    codeSplitting: { groups: [{ name: 'read-commands', test: /src\/(app\/read-app|cli\/(statusline|usage-report|format-job))\.ts$/ }] },
  },
});
