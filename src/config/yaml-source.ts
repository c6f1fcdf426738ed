/**
 * Parses one YAML config text and keeps what is needed to point at lines: the
 * Document (nodes carry source ranges) and a LineCounter. Reports YAML syntax
 * errors as ConfigIssues; knows nothing about the config schema.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type YAMLError } from 'yaml';
import { formatKeyPath, type ConfigIssue, type KeyPath } from './format-issues.js';

export interface YamlSource {
  /** The file as shown in messages. */
  readonly file: string;
  readonly doc: Document.Parsed;
  /** Plain data (undefined when the file has syntax errors or is empty). */
  readonly data: unknown;
  /** Syntax errors (duplicate keys included); when non-empty, `data` is undefined. */
  readonly issues: ConfigIssue[];
  /**
   * The 1-based line of the key at `path` (for a list item, the item). When the
   * path does not exist, the line of the deepest part that does: a missing
   * required key points at its parent mapping.
   */
  lineAt(path: KeyPath): number | undefined;
}

/** The same parse options everywhere, so the loader and the sidecar writer agree on what a file means. */
export const YAML_OPTIONS = { prettyErrors: false, uniqueKeys: true, merge: true } as const;

export function parseYamlSource(file: string, text: string): YamlSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { ...YAML_OPTIONS, lineCounter });
  const lastLine = lastContentLine(text);
  const lineOf = (offset: number): number => Math.min(lineCounter.linePos(offset).line, lastLine);

  const lineAt = (path: KeyPath): number | undefined => {
    let node: unknown = doc.contents;
    let line = rangeStart(node) === undefined ? undefined : lineOf(rangeStart(node) ?? 0);
    for (const segment of path) {
      node = resolve(doc, node);
      let next: unknown;
      let at: unknown;
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
        if (pair === undefined) return line;
        at = pair.key;
        next = pair.value;
      } else if (isSeq(node) && typeof segment === 'number') {
        next = node.items[segment];
        if (next === undefined) return line;
        at = next;
      } else {
        return line;
      }
      const start = rangeStart(at);
      if (start !== undefined) line = lineOf(start);
      node = next;
    }
    return line;
  };

  const issues = doc.errors.map((err) => syntaxIssue(file, doc, err, lineOf));
  let data: unknown;
  if (issues.length === 0) {
    try {
      data = doc.toJS();
    } catch (err) {
      // toJS throws on alias bombs and similar; report it like a syntax error.
      issues.push({ file, line: undefined, key: undefined, message: `YAML error: ${err instanceof Error ? err.message : String(err)}` });
    }
  }
  return { file, doc, data, issues, lineAt };
}

function syntaxIssue(file: string, doc: Document.Parsed, err: YAMLError, lineOf: (offset: number) => number): ConfigIssue {
  const line = lineOf(err.pos[0]);
  if (err.code === 'DUPLICATE_KEY') {
    const key = formatKeyPath(pathAtOffset(doc.contents, err.pos[0], []) ?? []);
    return { file, line, key, message: 'duplicate key — each key may appear only once in a mapping' };
  }
  if (err.code === 'MULTIPLE_DOCS') {
    return { file, line, key: undefined, message: 'YAML syntax error: a second document starts here (---); a config file holds one' };
  }
  return { file, line, key: undefined, message: `YAML syntax error: ${err.message}` };
}

/** The key path of the map key that starts at `offset` (where yaml reports a duplicate). */
function pathAtOffset(node: unknown, offset: number, path: (string | number)[]): (string | number)[] | undefined {
  if (isMap(node)) {
    for (const pair of node.items) {
      const name = isScalar(pair.key) ? String(pair.key.value) : '?';
      if (rangeStart(pair.key) === offset) return [...path, name];
      const found = pathAtOffset(pair.value, offset, [...path, name]);
      if (found !== undefined) return found;
    }
  } else if (isSeq(node)) {
    for (const [index, item] of node.items.entries()) {
      const found = pathAtOffset(item, offset, [...path, index]);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function resolve(doc: Document.Parsed, node: unknown): unknown {
  return isAlias(node) ? node.resolve(doc) : node;
}

function rangeStart(node: unknown): number | undefined {
  if (isScalar(node) || isMap(node) || isSeq(node) || isAlias(node)) return node.range?.[0];
  return undefined;
}

/** yaml reports errors at end-of-input one line past the text; clamp to the last line that has content. */
function lastContentLine(text: string): number {
  const trimmed = text.replace(/\s+$/, '');
  return trimmed === '' ? 1 : trimmed.split('\n').length;
}
