// Small modules with one job: no file in src/ over MAX_FILE_LINES lines and no function (declaration, arrow,
// function expression, method, accessor, constructor) over MAX_FUNCTION_LINES, except those listed with their reason
// in ./size-exceptions.ts. A function's lines run from its first token (its doc comment left out) to its last.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from './import-graph.js';
import { SIZE_EXCEPTIONS, type SizeException } from './size-exceptions.js';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
const MAX_FILE_LINES = 300;
const MAX_FUNCTION_LINES = 100;
/** A folder a newcomer can take in at a glance: past this, it wants sub-folders that name their concerns. */
const MAX_FILES_PER_FOLDER = 20;

/** Each folder of src/ (src/ itself included) with the number of source files directly in it. */
function folderCounts(dir: string): [string, number][] {
  const entries = readdirSync(dir, { withFileTypes: true });
  const own = entries.filter((e) => e.isFile() && /\.c?ts$/.test(e.name)).length;
  return [[relative(SRC, dir) || '.', own], ...entries.filter((e) => e.isDirectory()).flatMap((e) => folderCounts(join(dir, e.name)))];
}

interface Oversize {
  /** Relative to src/, with forward slashes. */
  readonly file: string;
  /** 1-based line where the file or function starts. */
  readonly line: number;
  /** Absent for the file itself. */
  readonly function?: string;
  readonly lines: number;
}

type FunctionNode = ts.FunctionLikeDeclaration;

function isFunction(node: ts.Node): node is FunctionNode {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/** The name a person looks for: the function's own, else the variable or property it is assigned to. */
function nameOf(node: FunctionNode, source: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name !== undefined) return node.name.getText(source);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.initializer === node) return parent.name.getText(source);
  if (ts.isBinaryExpression(parent) && parent.right === node) return parent.left.getText(source);
  return '(anonymous)';
}

/** `file` is relative to src/; `text` is its content. */
export function oversizedIn(file: string, text: string): Oversize[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Oversize[] = [];
  const fileLines = text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (fileLines > MAX_FILE_LINES) found.push({ file, line: 1, lines: fileLines });
  const lineOf = (pos: number): number => source.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node: ts.Node): void => {
    if (isFunction(node) && node.body !== undefined) {
      const first = lineOf(node.getStart(source));
      const lines = lineOf(node.getEnd()) - first + 1;
      if (lines > MAX_FUNCTION_LINES) found.push({ file, line: first, function: nameOf(node, source), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const excuses = (o: Oversize) => (e: SizeException): boolean => e.file === o.file && e.function === o.function;

const words = (o: Oversize): string =>
  o.function === undefined ? `src/${o.file}: ${o.lines} lines (over ${MAX_FILE_LINES})` : `src/${o.file}:${o.line} ${o.function}: ${o.lines} lines (over ${MAX_FUNCTION_LINES})`;

describe('sizes in src/', () => {
  const all = sourceFiles(SRC).flatMap((path) => oversizedIn(relative(SRC, path).split(sep).join('/'), readFileSync(path, 'utf8')));

  it(`has no file over ${MAX_FILE_LINES} lines and no function over ${MAX_FUNCTION_LINES}, beyond the listed exceptions`, () => {
    expect(all.filter((o) => !SIZE_EXCEPTIONS.some(excuses(o))).map(words)).toEqual([]);
  });

  it(`has no folder with more than ${MAX_FILES_PER_FOLDER} source files directly in it`, () => {
    const crowded = folderCounts(SRC).filter(([, n]) => n > MAX_FILES_PER_FOLDER);
    expect(crowded.map(([folder, n]) => `src/${folder}: ${n} files`)).toEqual([]);
  });

  it('lists no exception that nothing needs any more', () => {
    const stale = SIZE_EXCEPTIONS.filter((e) => !all.some((o) => excuses(o)(e)));
    expect(stale.map((e) => `${e.file}${e.function === undefined ? '' : ` ${e.function}`}: ${e.reason}`)).toEqual([]);
  });

  it('reports each kind of long function by file, line, name and length, and a long file', () => {
    const body = (n: number): string => Array.from({ length: n - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = [
      '// a synthetic module',
      `export function declared(): void {\n${body(101)}\n}`,
      `const arrow = (): void => {\n${body(101)}\n};`,
      `const expressed = function (): void {\n${body(101)}\n};`,
      `class Holder {\n  method(): void {\n${body(101)}\n  }\n  short(): void {\n${body(100)}\n  }\n}`,
      `export const api = { handler: () => {\n${body(101)}\n} };`,
      '',
    ].join('\n');
    const found = oversizedIn('example/long.ts', text);
    expect(found.map(words)).toEqual([
      `src/example/long.ts: ${text.split('\n').length - 1} lines (over 300)`,
      'src/example/long.ts:2 declared: 101 lines (over 100)',
      'src/example/long.ts:103 arrow: 101 lines (over 100)',
      'src/example/long.ts:204 expressed: 101 lines (over 100)',
      'src/example/long.ts:306 method: 101 lines (over 100)',
      'src/example/long.ts:508 handler: 101 lines (over 100)',
    ]);
  });

  it('passes a file of exactly the limits', () => {
    const text = `export function edge(): void {\n${Array.from({ length: 98 }, () => '  void 0;').join('\n')}\n}\n${'\n'.repeat(200)}`;
    expect(text.split('\n').length - 1).toBe(300);
    expect(oversizedIn('example/edge.ts', text)).toEqual([]);
  });
});
