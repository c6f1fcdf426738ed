/**
 * Finds paths in a repository file that lead out of the repository: a clone
 * has nothing beside it, so a test that reads a folder beside the checkout,
 * or a comment that cites one, works only on the machine it was written on.
 *
 * What counts as a climb:
 * - in code, a path expression whose value can be worked out from the file's
 *   own location and string literals (`'../x'` literals and `new URL('../x',
 *   import.meta.url)` from the file's folder; `resolve`/`join` calls whose base
 *   is the file's folder, a relative literal, or a constant of this file built
 *   that way) and that goes above the repository root at any step;
 * - in prose (comments, Markdown) and plain text (shell, Python), a path
 *   that starts by going up and names a file or folder (two levels, a trailing
 *   slash or an extension): citations are read from the repository root and
 *   scripts run there, so it names something beside the checkout. A bare
 *   up-and-over word is a quoted input (a path-traversal attempt), not a
 *   citation. Markdown link targets and code fences in JS/TS are read from the
 *   file's folder, as renderers and readers do;
 * - anywhere, an absolute path into the folder that holds the checkout that names something there (a made-up
 *   path in a test, such as /tmp/la-repo-…, does not, nor one that exists by chance in the shared temp folder:
 *   where a clone lives, and what else sits there, must not decide whether it passes).
 * Paths built from values known only at run time (a user's worktree, a temp
 * directory) are not the repository's and are left alone.
 */
import { existsSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';

export interface Climb {
  readonly file: string;
  readonly line: number;
  readonly text: string;
  readonly why: string;
}

/** The repository's own location, to resolve against; `parent` is where the checkout sits. */
export interface RepoPlace {
  readonly root: string;
  readonly parent: string;
}

export function repoPlace(root: string): RepoPlace {
  return { root, parent: path.dirname(root) };
}

/** The system's temp folder, as named and as resolved. */
const SHARED_TEMP = new Set([tmpdir(), realpathSync(tmpdir()), '/tmp']);

const CODE_FILE = /\.(?:[cm]?[jt]s|tsx)$/;
const PROSE_PATH = /(?:^|[\s`'"([<,;:=])((?:\.\.\/)+[\w.@-][\w.@/-]*)/g;
/** After the climb: a folder with a slash, a second level, or a file name with an extension. */
const CITED_PLACE = /^(?:\.\.\/)+(?:[\w@-][\w.@-]*\/|[\w@-]+\.\w+$)/;
const MARKDOWN_LINK = /\]\(([^)\s]+)\)/g;
const CODE_FENCE = /^```(js|javascript|mjs|ts|typescript)\s*\n([\s\S]*?)^```/gm;

/** Whether `at` is the root or below it. */
function inside(root: string, at: string): boolean {
  return at === root || at.startsWith(root + path.sep);
}

/** Whether reading `target` from `fromDir` (a folder in the repository) leaves the root at any step. */
function climbsOut(root: string, fromDir: string, target: string): boolean {
  if (path.isAbsolute(target) || !inside(root, fromDir)) return false;
  let at = fromDir;
  for (const part of target.split(/[\\/]+/)) {
    if (part === '' || part === '.') continue;
    at = part === '..' ? path.dirname(at) : path.join(at, part);
    if (!inside(root, at)) return true;
  }
  return false;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * Whether an absolute path under the checkout's folder names something a clone elsewhere would miss: a file or
 * folder beside the checkout that is there, or one inside it named by its absolute path. A path a test makes up
 * (a fixture's /tmp/la-repo-…) names nothing, so a clone straight under /tmp passes as one anywhere else does.
 */
function namesSomethingThere(place: RepoPlace, token: string): boolean {
  const own = token.replace(/[.,;:]+$/, '');
  const beside = own.slice(place.parent.length + 1).split('/')[0] ?? '';
  if (beside === '' || beside === '.' || beside === '..') return false;
  if (beside === path.basename(place.root)) return own.length > place.root.length + 1 && existsSync(own);
  // The shared temp folder holds whatever other programs left (an earlier clone at /tmp/x): there, a path that
  // exists is chance, not something the checkout relies on.
  return !SHARED_TEMP.has(place.parent) && existsSync(path.join(place.parent, beside));
}

/** Absolute paths under the checkout's folder: the only climbs that depend on where the checkout sits. */
export function absoluteClimbs(place: RepoPlace, file: string, text: string): Climb[] {
  if (path.dirname(place.parent) === place.parent) return []; // a checkout at the top of the filesystem has no outside folder to name
  const out: Climb[] = [];
  const prefix = place.parent + '/';
  for (let i = text.indexOf(prefix); i !== -1; i = text.indexOf(prefix, i + 1)) {
    const before = text[i - 1];
    if (before !== undefined && /[\w.-]/.test(before)) continue; // part of a longer path or URL
    const token = /^[^\s'"`)]+/.exec(text.slice(i))?.[0] ?? prefix;
    if (namesSomethingThere(place, token)) out.push({ file, line: lineOf(text, i), text: token, why: `absolute path into ${place.parent}, the folder that holds this checkout` });
  }
  return out;
}

/** `../…` paths in a stretch of text, with their offsets in it. */
function relativePaths(text: string): Array<{ readonly at: number; readonly cited: string }> {
  return [...text.matchAll(PROSE_PATH)].map((m) => {
    const cited = m[1] ?? '';
    return { at: m.index + m[0].length - cited.length, cited };
  });
}

/** `../…` citations in `whole` between `start` and `end`, read from the repository root. */
function proseClimbs(place: RepoPlace, file: string, whole: string, span: { readonly start: number; readonly end: number }, skip: (at: number) => boolean = () => false): Climb[] {
  return relativePaths(whole.slice(span.start, span.end))
    .map(({ at, cited }) => ({ at: span.start + at, cited }))
    .filter(({ at, cited }) => !skip(at) && CITED_PLACE.test(cited) && climbsOut(place.root, place.root, cited))
    .map(({ at, cited }) => ({ file, line: lineOf(whole, at), text: cited, why: 'read from the repository root (as citations are), this is outside it' }));
}

function markdownClimbs(place: RepoPlace, file: string, text: string): Climb[] {
  const dir = path.dirname(path.join(place.root, file));
  const out: Climb[] = [];
  const fences: Array<readonly [number, number]> = [];
  for (const m of text.matchAll(CODE_FENCE)) {
    const body = m[2] ?? '';
    const start = m.index + m[0].indexOf(body);
    fences.push([start, start + body.length]);
    const lineOffset = lineOf(text, start) - 1;
    out.push(...codeClimbs(place, file, body).map((c) => ({ ...c, line: c.line + lineOffset })));
  }
  const targetStarts = new Set<number>();
  for (const m of text.matchAll(MARKDOWN_LINK)) {
    const target = m[1] ?? '';
    targetStarts.add(m.index + 2);
    if (!/^[a-z][\w+.-]*:/i.test(target) && climbsOut(place.root, dir, target)) {
      out.push({ file, line: lineOf(text, m.index), text: target, why: 'link target outside the repository' });
    }
  }
  const skip = (at: number): boolean => targetStarts.has(at) || fences.some(([start, end]) => at >= start && at < end);
  return [...out, ...proseClimbs(place, file, text, { start: 0, end: text.length }, skip)];
}

type PathValue = { readonly dir: string; readonly escaped: boolean } | undefined;

/** Evaluates path expressions of one source file as far as literals and the file's own location allow. */
class PathEvaluator {
  private readonly constants = new Map<string, ts.Expression>();

  constructor(
    private readonly root: string,
    private readonly fileDir: string,
    source: ts.SourceFile,
  ) {
    const collect = (node: ts.Node): void => {
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer !== undefined) this.constants.set(node.name.text, node.initializer);
      ts.forEachChild(node, collect);
    };
    collect(source);
  }

  private walk(from: PathValue, segment: string): PathValue {
    if (from === undefined) return undefined;
    return { dir: path.resolve(from.dir, segment), escaped: from.escaped || climbsOut(this.root, from.dir, segment) };
  }

  private isImportMetaUrl(node: ts.Expression): boolean {
    return ts.isPropertyAccessExpression(node) && node.name.text === 'url' && ts.isMetaProperty(node.expression);
  }

  /** The folder or file a path expression names, or undefined when it depends on run time. */
  value(node: ts.Expression, seen: ReadonlySet<string> = new Set()): PathValue {
    const here: PathValue = { dir: this.fileDir, escaped: false };
    if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isNonNullExpression(node)) return this.value(node.expression, seen);
    if (ts.isStringLiteralLike(node)) return this.walk({ dir: this.root, escaped: false }, node.text); // relative to the working directory: npm and vitest run from the root
    if (ts.isPropertyAccessExpression(node) && node.name.text === 'dirname' && ts.isMetaProperty(node.expression)) return here;
    if (ts.isIdentifier(node)) {
      if (node.text === '__dirname') return here;
      const init = this.constants.get(node.text);
      if (init === undefined || seen.has(node.text)) return undefined;
      return this.value(init, new Set([...seen, node.text]));
    }
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'URL') {
      const [target, base] = node.arguments ?? [];
      if (target !== undefined && base !== undefined && ts.isStringLiteralLike(target) && this.isImportMetaUrl(base)) return this.walk(here, target.text);
      return undefined;
    }
    if (!ts.isCallExpression(node)) return undefined;
    const callee = ts.isPropertyAccessExpression(node.expression) ? node.expression.name.text : ts.isIdentifier(node.expression) ? node.expression.text : '';
    const [first, ...rest] = node.arguments;
    if (first === undefined) return undefined;
    if (callee === 'fileURLToPath') return this.isImportMetaUrl(first) ? here : this.value(first, seen);
    if (callee === 'dirname') {
      const inner = this.value(first, seen);
      // dirname of the module's own file is its folder; of a folder, its parent.
      const ownFile = ts.isCallExpression(first) && first.arguments[0] !== undefined && this.isImportMetaUrl(first.arguments[0]);
      return ownFile ? inner : inner === undefined ? undefined : this.walk(inner, '..');
    }
    if (callee !== 'resolve' && callee !== 'join') return undefined;
    let at = this.value(first, seen);
    for (const arg of rest) {
      if (at === undefined || at.escaped) break;
      if (!ts.isStringLiteralLike(arg)) return undefined;
      at = this.walk(at, arg.text);
    }
    return at;
  }
}

function codeClimbs(place: RepoPlace, file: string, text: string): Climb[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const fileDir = path.dirname(path.join(place.root, file));
  const evaluator = new PathEvaluator(place.root, fileDir, source);
  const out: Climb[] = [];
  const flagged = new Set<number>();
  const flag = (node: ts.Node, why: string): void => {
    if (flagged.has(node.getStart())) return;
    flagged.add(node.getStart());
    out.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: node.getText().slice(0, 120), why });
  };
  const comments = new Set<number>();
  const visit = (node: ts.Node): void => {
    for (const range of [...(ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []), ...(ts.getTrailingCommentRanges(text, node.getEnd()) ?? [])]) {
      if (comments.has(range.pos)) continue;
      comments.add(range.pos);
      out.push(...proseClimbs(place, file, text, { start: range.pos, end: range.end }));
    }
    if (ts.isStringLiteralLike(node) && node.text.startsWith('../') && climbsOut(place.root, fileDir, node.text)) flag(node, "relative path read from this file's folder leads outside the repository");
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      if (evaluator.value(node)?.escaped === true) flag(node, 'this path expression climbs above the repository root');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Every climb in one file; `file` is relative to the repository root. */
export function findClimbs(place: RepoPlace, file: string, text: string): Climb[] {
  // Plain text (shell, Python, HTML) is read like prose: scripts run from the root (.ci/run cds there first).
  const found = CODE_FILE.test(file) ? codeClimbs(place, file, text) : file.endsWith('.md') ? markdownClimbs(place, file, text) : proseClimbs(place, file, text, { start: 0, end: text.length });
  return [...found, ...absoluteClimbs(place, file, text)];
}
