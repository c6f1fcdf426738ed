/**
 * Runs a CommonJS file the way require() would, with a V8 code cache beside it (`<file>.cache`): the functions
 * that ran when the cache was made come compiled, which saves a status line a tenth of its start (BENCHMARKS.md,
 * part 9). Node 22 has module.enableCompileCache for this; Node 20 has vm.Script's cachedData. `npm run build`
 * makes the cache (scripts/build-fast-cli.mjs); one from another Node or V8 is refused by V8 itself, and the file
 * then compiles as if it had none.
 */
import fs = require('node:fs');
import nodeModule = require('node:module');
import path = require('node:path');
import vm = require('node:vm');

const codeCacheFile = (file: string): string => `${file}.cache`;

interface LoadedFile {
  readonly exports: unknown;
  /** For making the cache: vm.Script's createCachedData() after the file's code has run. */
  readonly script: vm.Script;
}

type Wrapper = (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dirname: string) => void;

/** The file's exports; its errors (ENOENT for a missing file) are thrown as they are. */
function loadWithCodeCache(file: string): LoadedFile {
  const source = fs.readFileSync(file, 'utf8');
  let cachedData: Buffer | undefined;
  try {
    cachedData = fs.readFileSync(codeCacheFile(file));
  } catch {
    cachedData = undefined; // not made yet: compiled without
  }
  // The wrapper require() puts around a CommonJS file.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, ...(cachedData === undefined ? {} : { cachedData }) });
  const module = { exports: {} as unknown };
  (script.runInThisContext() as Wrapper)(module.exports, nodeModule.createRequire(file), module, file, path.dirname(file));
  return { exports: module.exports, script };
}

// A CommonJS module's exports (verbatimModuleSyntax allows no `export` on values here).
export = { codeCacheFile, loadWithCodeCache };
