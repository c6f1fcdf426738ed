// Imports in src/ flow one way down the layers written in ./layers.ts. Every import counts: values, types,
// re-exports and dynamic import().
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { LAYERS } from './layers.js';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.c?ts$/.test(entry.name) ? [path] : [];
  });
}

/** The unit a file in src/ belongs to: its top folder, or its own name for a top-level file. */
function unitOf(file: string): string {
  const parts = relative(SRC, file).split(sep);
  return parts.length > 1 ? parts[0]! : parts[0]!.replace(/\.c?ts$/, '');
}

function layerOf(unit: string): number {
  return LAYERS.findIndex((layer) => layer.includes(unit));
}

interface Violation {
  file: string;
  specifier: string;
  rule: string;
}

function violationsIn(file: string, text: string): Violation[] {
  const from = unitOf(file);
  const fromLayer = layerOf(from);
  const name = relative(SRC, file);
  if (fromLayer < 0) return [{ file: name, specifier: '', rule: `unit "${from}" is not in test/structure/layers.ts` }];
  const imported = ts.preProcessFile(text, true, true).importedFiles.map((ref) => ref.fileName);
  return imported.flatMap((specifier): Violation[] => {
    if (!specifier.startsWith('.')) return [];
    const target = resolve(dirname(file), specifier);
    if (!target.startsWith(SRC + sep)) return [{ file: name, specifier, rule: 'imports from outside src/' }];
    const to = unitOf(target.replace(/\.js$/, '.ts').replace(/\.cjs$/, '.cts'));
    if (to === from) return [];
    const toLayer = layerOf(to);
    if (toLayer < 0) return [{ file: name, specifier, rule: `unit "${to}" is not in test/structure/layers.ts` }];
    if (toLayer > fromLayer) return [];
    const rule = toLayer === fromLayer ? `${from} and ${to} are siblings in one layer` : `${from} sits below ${to}`;
    return [{ file: name, specifier, rule: `${rule}: ${from} must not import ${to}` }];
  });
}

describe('layering of src/', () => {
  it('has no import that runs against the layer order', () => {
    const violations = sourceFiles(SRC).flatMap((file) => violationsIn(file, readFileSync(file, 'utf8')));
    const lines = violations.map((v) => `${v.file} imports '${v.specifier}' — ${v.rule}`);
    expect(lines).toEqual([]);
  });

  it('names the file, the import and the rule for an upward import', () => {
    const file = join(SRC, 'config', 'example.ts');
    expect(violationsIn(file, "import type { JobRecord } from '../jobs/job-record.js';\n")).toEqual([
      { file: join('config', 'example.ts'), specifier: '../jobs/job-record.js', rule: 'config sits below jobs: config must not import jobs' },
    ]);
  });
});
