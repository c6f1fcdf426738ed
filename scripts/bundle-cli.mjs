// `npm run build`: the command line as dist/main.cjs (the package's bin) and dist/chunks/, one
// CommonJS file per group of modules that load together. A command loads only the chunks it imports: the status
// line a few files, not the sixty-odd ES modules tsc writes, which Node 20 loads one by one at several times the
// cost (BENCHMARKS.md, part 9). npm packages are bundled in as well: undici, zod, yaml and the MCP SDK are some
// hundred files that Node 20 would resolve, read and compile one by one in every process (an MCP server that starts
// and lists its tools: 0.64 s of CPU with them as require()s, 0.44 s bundled). Two stay apart: the Agent SDK, an ES
// module loaded with the first session, and unpdf (pdf.js), loaded with the first PDF. Everything a process runs
// comes from these files, so each module exists once in it. The chunks sit one folder down, as tsc's files do:
// src/dashboard/asset-files.ts finds src/dashboard/public/ from its own place. Nothing else of tsc's output was ever
// run, so the build does not run tsc: `npm run typecheck` (part of `npm test`) checks the types.
//
// Processes of this checkout may be running while it builds (an MCP server, a test suite's commands, a second
// `npm test`), and each loads its chunks when a command first needs them. So the build is put in place file by file:
// a file whose content is the same is left alone, a changed one is written beside it and renamed over it, and only
// then do chunks the new build no longer has go. A rebuild of the same tree changes nothing, and a process never
// reads a chunk half written.
import { Buffer } from 'node:buffer';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';
import { rolldown } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = fileURLToPath(new URL('../dist/', import.meta.url));

/** Bundles `input` and returns each output file's path under dist/ and its bytes. */
async function bundle(input, output) {
  const build = await rolldown(input);
  try {
    const { output: files } = await build.generate(output);
    return files.map((f) => [f.fileName, Buffer.from(f.type === 'chunk' ? f.code : f.source)]);
  } finally {
    await build.close();
  }
}

const sameBytes = (path, bytes) => {
  try {
    return readFileSync(path).equals(bytes);
  } catch {
    return false;
  }
};

const files = [
  ...(await bundle(
    {
      cwd: root,
      input: { main: 'src/main.cts' },
      platform: 'node',
      // Node's own modules, and the two packages loaded on first use.
      external: (id) => id.startsWith('node:') || builtinModules.includes(id) || id.startsWith('@anthropic-ai/claude-agent-sdk') || id === 'unpdf',
      logLevel: 'warn',
    },
    {
      format: 'cjs',
      entryFileNames: '[name].cjs',
      chunkFileNames: 'chunks/[name]-[hash].cjs',
      // The bundled packages' licence notices stay; other comments go.
      comments: { legal: true, annotation: false, jsdoc: false },
      // What the commands a status line or a person runs all day (statusline, jobs, show, usage) read and word, and
      // everything that imports, in one file; their commander wiring stays apart, as the status line needs none.
      codeSplitting: { groups: [{ name: 'read-commands', test: /src\/(app\/read-app|cli\/(statusline|usage-report|format-job))\.ts$/ }] },
    },
  )),
  // `node dist/main.js`, as setups made from an earlier README start it: an ES module that only loads the bin.
  ...(await bundle(
    { cwd: root, input: { main: 'src/main.ts' }, platform: 'node', external: ['./main.cjs'], logLevel: 'warn' },
    { format: 'esm', entryFileNames: '[name].js', comments: false },
  )),
];

for (const [name, bytes] of files) {
  const path = join(dist, name);
  if (sameBytes(path, bytes)) continue;
  mkdirSync(dirname(path), { recursive: true });
  const next = `${path}.${process.pid}.tmp`;
  // The two entry files are the package's bin: executable from the moment they are in place.
  writeFileSync(next, bytes, { mode: name.startsWith('chunks/') ? 0o644 : 0o755 });
  renameSync(next, path);
}
const built = new Set(files.map(([name]) => name));
for (const name of readdirSync(join(dist, 'chunks'))) if (!built.has(`chunks/${name}`)) rmSync(join(dist, 'chunks', name), { force: true });
