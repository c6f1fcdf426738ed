/**
 * A clone of the repository has nothing beside it: no file may read or cite a
 * path outside the checkout (path-climbs.ts says what counts).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { absoluteClimbs, findClimbs, repoPlace, type Climb, type RepoPlace } from './path-climbs.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const HERE = repoPlace(ROOT);

/** Captured bytes of other programs (their paths are data, not ours) and generated output. */
const NOT_OURS = [/^test\/fixtures\//, /^plugin\/localagents\.mjs$/];

/** Tracked files and new ones not yet added, as git sees them (ignored build output excluded). */
function repositoryFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  return [...new Set(listed.split('\0'))].filter((f) => f !== '' && !NOT_OURS.some((re) => re.test(f)));
}

function describeClimbs(climbs: readonly Climb[]): string {
  return [
    `${climbs.length} path(s) lead outside the repository; a clone has nothing beside it:`,
    ...climbs.map((c) => `  ${c.file}:${c.line}  ${c.text}  (${c.why})`),
    'Fix: copy what the code needs into the repository (captures under test/fixtures/ with provenance, facts under docs/)',
    'and point at it from inside: import.meta.dirname-relative in code, repository-root paths such as docs/backends.md in prose.',
  ].join('\n');
}

/** The repository's text files, read once: every check below looks at the same bytes. */
let texts: Array<{ readonly file: string; readonly text: string }> | undefined;
function repositoryTexts(): Array<{ readonly file: string; readonly text: string }> {
  if (texts !== undefined) return texts;
  const files = repositoryFiles();
  expect(files).toContain('src/main.ts'); // the listing really is this repository's
  texts = files.flatMap((file) => {
    const bytes = readFileSync(path.join(ROOT, file));
    return bytes.includes(0) ? [] : [{ file, text: bytes.toString('utf8') }];
  });
  return texts;
}

describe('the repository stands on its own', () => {
  // Parsing every file takes seconds, more on a loaded machine: a time limit, not an assertion.
  it('no file in src/, test/, bench/, scripts/, .ci/, docs/ or the top level reads or cites a path outside the checkout', { timeout: 120_000 }, () => {
    const climbs = repositoryTexts().flatMap(({ file, text }) => findClimbs(HERE, file, text));
    expect(climbs, describeClimbs(climbs)).toEqual([]);
  });

  // Where a clone lives must not decide whether its tests pass (issue 36: a clone at /tmp/fresh failed here on the
  // made-up /tmp/la-repo-… paths of a rewrite test). Relative climbs are read against the checkout's own tree, the
  // same wherever it sits; absolute ones are read here as if it sat elsewhere. .ci/run runs this file from real
  // clones at those places too.
  it.each([
    ['straight under /tmp', '/tmp/x'],
    ['under ~/src', path.join(homedir(), 'src', 'x')],
    ['in a mktemp -d folder', path.join(tmpdir(), 'tmp.Qx81kZ', 'x')],
  ])('and no more when the checkout sits %s (%s)', { timeout: 120_000 }, (_where, root) => {
    const climbs = repositoryTexts().flatMap(({ file, text }) => absoluteClimbs(repoPlace(root), file, text));
    expect(climbs, describeClimbs(climbs)).toEqual([]);
  });
});

describe('absolute paths: what is beside the checkout, not made-up paths that happen to share its folder', () => {
  const parent = mkdtempSync(path.join(tmpdir(), 'la-place-'));
  const place = repoPlace(path.join(parent, 'repo'));
  mkdirSync(path.join(parent, 'shared', 'docs'), { recursive: true });
  mkdirSync(path.join(parent, 'repo', 'docs'), { recursive: true });
  writeFileSync(path.join(parent, 'shared', 'docs', 'backends.md'), 'facts');
  writeFileSync(path.join(parent, 'repo', 'docs', 'a.md'), 'ours');
  const climbsIn = (text: string): string[] => findClimbs(place, 'test/a.test.ts', text).map((c) => c.text);

  it('a folder beside the checkout is caught, and so is this checkout named by its absolute path', () => {
    expect(climbsIn(`readFileSync('${parent}/shared/docs/backends.md');`)).toEqual([`${parent}/shared/docs/backends.md`]);
    expect(climbsIn(`readFileSync('${parent}/repo/docs/a.md');`)).toEqual([`${parent}/repo/docs/a.md`]);
  });
  it('a made-up path in the same folder is not (a fixture /tmp/la-repo-… read in a clone at /tmp/x)', () => {
    expect(climbsIn(`const cwd = '${parent}/la-repo-dlHJS8'; const c = '${parent}/repo-other/x';`)).toEqual([]);
  });
  // The CI machine's /tmp held /tmp/x (an earlier clone) and failed a clone at /tmp/localagents-… on the made-up
  // cwd '/tmp/x' of a record test: what other programs left in the shared temp folder is not beside the checkout.
  it('a made-up path that happens to exist in the shared temp folder is not, when the checkout sits straight in it', () => {
    const there = mkdtempSync(path.join(tmpdir(), 'la-other-program-'));
    const clone = repoPlace(path.join(tmpdir(), 'localagents-clone'));
    try {
      expect(findClimbs(clone, 'test/a.test.ts', `const cwd = '${there}';`)).toEqual([]);
    } finally {
      rmSync(there, { recursive: true, force: true });
    }
  });
  afterAll(() => rmSync(parent, { recursive: true, force: true }));
});

describe('what counts as climbing out (a repository at /r/repo)', () => {
  const place: RepoPlace = repoPlace('/r/repo');
  const climbsIn = (file: string, text: string): string[] => findClimbs(place, file, text).map((c) => c.text);

  it.each([
    ['a root constant and a .. segment', 'test/sim/f.ts', "const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');\nexport const p = path.resolve(ROOT, '..', 'shared', 'fixtures');"],
    ['path.join(root, "..") on a root built from import.meta.dirname', 'bench/lib/g.ts', "const root = resolve(import.meta.dirname, '..', '..');\njoin(root, '..');"],
    ['more .. than the file is deep', 'test/a/b.test.ts', "const x = resolve(import.meta.dirname, '..', '..', '..', 'shared');"],
    ['new URL beyond the root', 'src/x/y.ts', "readFileSync(new URL('../../../shared/docs/backends.md', import.meta.url));"],
    ['an import from outside', 'test/a/b.test.ts', "import { x } from '../../../shared/x.js';"],
    ['a working-directory-relative literal', 'scripts/s.mjs', "readFileSync(resolve('..', 'shared', 'x.json'));"],
    ['a comment citing a sibling folder', 'src/backends/x.ts', '/** Facts: ../shared/docs/backends.md §4. */\nexport const a = 1;'],
    ['a Markdown citation', 'test/sim/README.md', 'Checked against `../shared/fixtures/llama-server/`.'],
    ['a Markdown link', 'docs/a.md', 'See [the sheet](../../shared/docs/backends.md).'],
    ['a JS fence in Markdown', 'docs/a.md', "```ts\nreadFileSync(new URL('../../shared/x.json', import.meta.url));\n```"],
    ['a shell script', '.ci/run', 'cd "$(dirname "$0")/.."\ncp -r ../shared/fixtures test/'],
  ])('%s is caught', (_what, file, text) => {
    expect(climbsIn(file, text)).not.toEqual([]);
  });

  it.each([
    ['a sibling folder from the file', 'bench/parts/p.ts', "forkHelper(resolve(import.meta.dirname, '..', 'hosts', 'sim-host.ts'));"],
    ['the root from a nested file', 'test/e2e/h.ts', "export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');"],
    ['a file URL inside the repository', 'src/dashboard/a.ts', "fileURLToPath(new URL('../../src/dashboard/public/', import.meta.url));"],
    ['a path-traversal input a test sends', 'test/mcp/server.test.ts', "for (const id of ['../../etc', 'a/b', '..']) call(id);"],
    ['a climb from a run-time folder', 'src/jobs/w.ts', "const parent = path.join(worktree, '..');"],
    ['a climb from an absolute folder', 'test/a.test.ts', "resolve('/tmp', '..');"],
    ['paths a test makes up', 'test/dashboard/b.test.ts', "const p = '/home/dev/project'; const q = '/etc/passwd';"],
    ['a root-relative citation', 'src/backends/x.ts', '/** Facts: docs/backends.md §4. */\nexport const a = 1;'],
    ['a Markdown link to a sibling file', 'test/sim/README.md', 'See [the fixtures](../fixtures/README.md).'],
    ['a path-traversal input quoted in prose', 'RELIABILITY.md', '| job ids that are paths (`../x`, `a/b`, `..`) | `bad_argument` |'],
    ['an import in a Markdown example, read from its folder', 'test/sim/README.md', "```ts\nimport { startSimulator } from '../sim/index.js';\n```"],
    ['URL paths', 'test/security/r.test.ts', "['POST', '/v1/messages/../../props'];"],
  ])('%s is not', (_what, file, text) => {
    expect(climbsIn(file, text)).toEqual([]);
  });
});
