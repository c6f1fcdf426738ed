// The import graph of src/, read with TypeScript's own parser: for each file, the files it imports (values, types,
// re-exports and dynamic import()) and the names each import takes. The layering test checks it against
// ./layers.ts and for circles.
import { readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { LAYERS, SUB_LAYERS } from './layers.js';

export interface ImportEdge {
  /** The specifier as written. */
  readonly specifier: string;
  /** The file it names, absolute, with its source extension. */
  readonly target: string;
  /** The names it takes: `x`, `type X`, `* as ns`, `default as y`, or `import()` for a dynamic import. */
  readonly names: readonly string[];
}

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.c?ts$/.test(entry.name) ? [path] : [];
  });
}

const sourceOf = (path: string): string => path.replace(/\.js$/, '.ts').replace(/\.cjs$/, '.cts');

function namesOf(clause: ts.ImportClause | undefined, isType: boolean): string[] {
  if (clause === undefined) return ['(side effects)'];
  const typed = (name: string, own: boolean): string => (isType || own ? `type ${name}` : name);
  const names = clause.name ? [typed(`default as ${clause.name.text}`, false)] : [];
  const bindings = clause.namedBindings;
  if (bindings && ts.isNamespaceImport(bindings)) names.push(typed(`* as ${bindings.name.text}`, false));
  if (bindings && ts.isNamedImports(bindings)) names.push(...bindings.elements.map((e) => typed((e.propertyName ?? e.name).text, e.isTypeOnly)));
  return names;
}

/** Every relative import of one file; `file` is absolute, `text` its content. */
export function importsOf(file: string, text: string): ImportEdge[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edges: ImportEdge[] = [];
  const add = (specifier: string, names: string[]): void => {
    if (specifier.startsWith('.')) edges.push({ specifier, target: sourceOf(resolve(dirname(file), specifier)), names });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, namesOf(node.importClause, node.importClause?.isTypeOnly ?? false));
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      const names = clause && ts.isNamedExports(clause) ? clause.elements.map((e) => (e.propertyName ?? e.name).text) : ['*'];
      add(node.moduleSpecifier.text, names);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteral(arg)) add(arg.text, ['import()']);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text, ['import() type']);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

/** Where a file sits: its top unit (folder or top-level file) and, inside a folder of SUB_LAYERS, its sub-unit. */
export function placeOf(src: string, file: string): { unit: string; sub: string | undefined } {
  const parts = relative(src, file).split(sep);
  if (parts.length === 1) return { unit: parts[0]!.replace(/\.c?ts$/, ''), sub: undefined };
  const unit = parts[0]!;
  if (SUB_LAYERS[unit] === undefined) return { unit, sub: undefined };
  return { unit, sub: parts.length > 2 ? parts[1]! : '.' };
}

const layerIndex = (layers: readonly (readonly string[])[], name: string): number => layers.findIndex((l) => l.includes(name));

/** Why an import from `from` to `to` runs against the order, or undefined when it may. */
export function layerRule(src: string, from: string, to: string): string | undefined {
  if (!to.startsWith(src + sep)) return 'imports from outside src/';
  const a = placeOf(src, from);
  const b = placeOf(src, to);
  if (a.unit === b.unit) {
    const subs = SUB_LAYERS[a.unit];
    if (subs === undefined || a.sub === b.sub) return undefined;
    return orderRule(subs, `${a.unit}/${a.sub}`, `${a.unit}/${b.sub}`, a.sub!, b.sub!, `test/structure/layers.ts SUB_LAYERS.${a.unit}`);
  }
  return orderRule(LAYERS, a.unit, b.unit, a.unit, b.unit, 'test/structure/layers.ts');
}

function orderRule(layers: readonly (readonly string[])[], fromName: string, toName: string, fromKey: string, toKey: string, where: string): string | undefined {
  const fromLayer = layerIndex(layers, fromKey);
  const toLayer = layerIndex(layers, toKey);
  if (fromLayer < 0) return `unit "${fromName}" is not in ${where}`;
  if (toLayer < 0) return `unit "${toName}" is not in ${where}`;
  if (toLayer > fromLayer) return undefined;
  const rule = toLayer === fromLayer ? `${fromName} and ${toName} are siblings in one layer` : `${fromName} sits below ${toName}`;
  return `${rule}: ${fromName} must not import ${toName}`;
}

/**
 * The import circles of a graph: one line per strongly connected group of files, walking one circle through it,
 * each step with the names that tie it (`a.ts → b.ts (x, type Y) → a.ts`). Files are named relative to `src`.
 */
export function circlesIn(src: string, graph: ReadonlyMap<string, readonly ImportEdge[]>): string[] {
  const groups = stronglyConnected(graph).filter((g) => g.length > 1 || (graph.get(g[0]!) ?? []).some((e) => e.target === g[0]));
  return groups.map((group) => {
    const inGroup = new Set(group);
    const start = [...group].sort()[0]!;
    const path = circleFrom(start, graph, inGroup);
    const steps = path.slice(1).map((file, i) => {
      const edge = graph.get(path[i]!)!.find((e) => e.target === file)!;
      return `→ ${relative(src, file)} (${edge.names.join(', ')})`;
    });
    return [relative(src, start), ...steps].join(' ');
  });
}

/** A shortest path from `start` back to itself inside the group (breadth first). */
function circleFrom(start: string, graph: ReadonlyMap<string, readonly ImportEdge[]>, inGroup: ReadonlySet<string>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const file = queue[i]!;
    for (const { target } of graph.get(file) ?? []) {
      if (!inGroup.has(target) || cameFrom.has(target)) continue;
      cameFrom.set(target, file);
      if (target === start) {
        const path = [start];
        for (let at = file; at !== start; at = cameFrom.get(at)!) path.unshift(at);
        return [start, ...path];
      }
      queue.push(target);
    }
  }
  return [start];
}

/** Tarjan's strongly connected components, iteratively (no recursion depth limit). */
function stronglyConnected(graph: ReadonlyMap<string, readonly ImportEdge[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  let next = 0;
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: { file: string; edge: number }[] = [{ file: root, edge: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = (graph.get(frame.file) ?? []).filter((e) => graph.has(e.target));
      if (frame.edge < edges.length) {
        const target = edges[frame.edge++]!.target;
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next++);
          stack.push(target);
          onStack.add(target);
          work.push({ file: target, edge: 0 });
        } else if (onStack.has(target)) low.set(frame.file, Math.min(low.get(frame.file)!, index.get(target)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.file, Math.min(low.get(parent.file)!, low.get(frame.file)!));
      if (low.get(frame.file) !== index.get(frame.file)) continue;
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== frame.file);
      groups.push(group);
    }
  }
  return groups;
}
