/**
 * The command line has one door: src/main.cts, which `npm run build` bundles into dist/main.cjs and
 * dist/chunks/. Whatever a command line asks, the process runs our code from those files only, so each
 * module exists once in it (a second copy would be a second logger and a second secret registry, which
 * redacts only what its own side learnt). Recorded in the child itself: the CommonJS files it loaded, and
 * every ES module it resolved, through a resolve hook that notes each URL.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT } from '../e2e/harness.js';

const RECORDER = `
const { appendFileSync } = require('node:fs');
const { register } = require('node:module');
register('data:text/javascript,' + encodeURIComponent(\`
  import { appendFileSync } from 'node:fs';
  export async function resolve(specifier, context, next) {
    const resolved = await next(specifier, context);
    appendFileSync(process.env.LOADED_FILE, resolved.url + '\\\\n');
    return resolved;
  }\`));
process.on('exit', () => appendFileSync(process.env.LOADED_FILE, Object.keys(require.cache).map((f) => require('node:url').pathToFileURL(f).href + '\\n').join('')));
`;

describe('one door into the command line', { timeout: 120_000 }, () => {
  let root: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'la-one-door-'));
    writeFileSync(join(root, 'recorder.cjs'), RECORDER);
    writeFileSync(join(root, 'models.yaml'), 'endpoints: {}\n');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** The files of this package the command loaded, relative to the repository, sorted. */
  function loadedBy(args: readonly string[], input = ''): string[] {
    const loaded = join(root, `loaded-${args.join('_').replace(/\W/g, '')}`);
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, LOCALAGENTS_STATE_DIR: join(root, 'state'), LOADED_FILE: loaded };
    const result = spawnSync(process.execPath, ['--require', join(root, 'recorder.cjs'), BIN, ...args], { cwd: root, env, input, encoding: 'utf8' });
    expect(result.stderr).not.toMatch(/Error|at /);
    const ours = pathToFileURL(REPO_ROOT).href;
    const urls = readFileSync(loaded, 'utf8').split('\n').filter((u) => u.startsWith(`${ours}/`) && !u.includes('/node_modules/'));
    return [...new Set(urls.map((u) => relative(REPO_ROOT, new URL(u).pathname)))].sort();
  }

  it.each([
    [['--version']],
    [['statusline'], '{"session_id":"s","cwd":"/tmp"}'],
    [['--config', 'models.yaml', 'jobs', '--all', '--json']],
    [['--config', 'models.yaml', 'usage', '--by', 'model']],
    [['--config', 'models.yaml', 'models', '--json']],
    [['--help']],
  ] as [string[], string?][])('%j loads our code only from dist/main.cjs and dist/chunks/', (args, input) => {
    const files = loadedBy(args, input);
    expect(files).toContain('dist/main.cjs');
    expect(files.filter((f) => f !== 'dist/main.cjs' && !/^dist\/chunks\/[^/]+\.cjs$/.test(f))).toEqual([]);
  });

  it('a status line loads a handful of files, not the modules one by one', () => {
    // The bundle's point: Node 20 loads each ES module at several times a CommonJS file's cost (BENCHMARKS.md, part 9).
    expect(loadedBy(['statusline'], '{}').length).toBeLessThanOrEqual(8);
  });
});
