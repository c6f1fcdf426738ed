// Imports in src/ flow one way down the layers written in ./layers.ts (and, inside jobs/ and shim/, down their
// sub-layers), and no import circle exists anywhere in src/, even inside one folder. Every import counts: values,
// types, re-exports and dynamic import().
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { circlesIn, importsOf, layerRule, sourceFiles, type ImportEdge } from './import-graph.js';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

interface Violation {
  file: string;
  specifier: string;
  rule: string;
}

function violationsIn(file: string, text: string): Violation[] {
  return importsOf(file, text).flatMap(({ specifier, target }): Violation[] => {
    const rule = layerRule(SRC, file, target);
    return rule === undefined ? [] : [{ file: relative(SRC, file), specifier, rule }];
  });
}

const graphOf = (files: Record<string, string>): Map<string, ImportEdge[]> =>
  new Map(Object.entries(files).map(([name, text]) => [join(SRC, name), importsOf(join(SRC, name), text)]));

describe('layering of src/', () => {
  const texts = Object.fromEntries(sourceFiles(SRC).map((file) => [relative(SRC, file), readFileSync(file, 'utf8')]));

  it('has no import that runs against the layer order', () => {
    const violations = Object.entries(texts).flatMap(([name, text]) => violationsIn(join(SRC, name), text));
    expect(violations.map((v) => `${v.file} imports '${v.specifier}' — ${v.rule}`)).toEqual([]);
  });

  it('has no import circle', () => {
    expect(circlesIn(SRC, graphOf(texts))).toEqual([]);
  });

  it('names the file, the import and the rule for an upward import', () => {
    const file = join(SRC, 'config', 'example.ts');
    expect(violationsIn(file, "import type { JobRecord } from '../jobs/record/job-record.js';\n")).toEqual([
      { file: join('config', 'example.ts'), specifier: '../jobs/record/job-record.js', rule: 'config sits below jobs: config must not import jobs' },
    ]);
  });

  it('names an upward import between the sub-layers of one folder', () => {
    const file = join(SRC, 'jobs', 'record', 'example.ts');
    expect(violationsIn(file, "import { jobFacts } from '../view/job-facts.js';\n")).toEqual([
      { file: join('jobs', 'record', 'example.ts'), specifier: '../view/job-facts.js', rule: 'jobs/record sits below jobs/view: jobs/record must not import jobs/view' },
    ]);
  });

  it('names every file of a circle inside one folder and the names that tie it', () => {
    const circles = circlesIn(
      SRC,
      graphOf({
        'jobs/record/a.ts': "import { b } from './b.js';\nexport const a = 1;\n",
        'jobs/record/b.ts': "import type { C } from './c.js';\nexport const b = 2;\n",
        'jobs/record/c.ts': "export { a as default } from './a.js';\nexport type C = number;\n",
        'jobs/record/d.ts': "import { a } from './a.js';\n",
      }),
    );
    expect(circles).toEqual(['jobs/record/a.ts → jobs/record/b.ts (b) → jobs/record/c.ts (type C) → jobs/record/a.ts (a)']);
  });

  it('finds a circle through a dynamic import and one of a file with itself', () => {
    const circles = circlesIn(
      SRC,
      graphOf({
        'usage/x.ts': "export async function x() { return import('./y.js'); }\n",
        'usage/y.ts': "import { x } from './x.js';\n",
        'usage/z.ts': "import * as self from './z.js';\n",
      }),
    );
    expect(circles).toEqual(['usage/x.ts → usage/y.ts (import()) → usage/x.ts (x)', 'usage/z.ts → usage/z.ts (* as self)']);
  });
});
