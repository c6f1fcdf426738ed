// Test files share their worker's loaded modules (vitest.config.ts, isolate: false), so what one file leaves in the
// process, the next file finds: an environment variable it set, a module mocked for it, a clock still fake. No test
// file may do the first two, and one that fakes the clock gives the real one back.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from './import-graph.js';

const TEST = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Vitest's global setup runs in the main process, before any worker: the one place that may set the environment. */
const GLOBAL_SETUP = 'helpers/run-temp.ts';

const ENV_WRITE = /process\.env(?:\.\w+|\[[^\]\n]+\])?\s*(?:=(?!=)|\+=|\?\?=|\|\|=)|delete\s+process\.env|(?:Object\.assign|Reflect\.(?:set|deleteProperty|defineProperty)|Object\.defineProperty)\(\s*process\.env\b|vi\.stubEnv\(/;
const MODULE_MOCK = /\bvi\.(?:mock|doMock)\(/;

/** What a test file's text leaves behind in a shared worker, one reason each. */
function leftBehind(text: string): string[] {
  const found: string[] = [];
  if (ENV_WRITE.test(text)) found.push('writes process.env');
  if (MODULE_MOCK.test(text)) found.push('mocks a module');
  if (text.includes('useFakeTimers(') && !text.includes('useRealTimers(')) found.push('fakes the clock and never gives it back');
  return found;
}

describe('test files that share a worker', () => {
  it('finds each kind of leftover', () => {
    expect(leftBehind("process.env.TZ = 'UTC';")).toEqual(['writes process.env']);
    expect(leftBehind("process.env['HOME'] ??= '/x';")).toEqual(['writes process.env']);
    expect(leftBehind('delete process.env.PATH;')).toEqual(['writes process.env']);
    expect(leftBehind("vi.stubEnv('A', 'b');")).toEqual(['writes process.env']);
    expect(leftBehind('process.env = { ...saved };')).toEqual(['writes process.env']);
    expect(leftBehind("Reflect.set(process.env, 'A', 'b');")).toEqual(['writes process.env']);
    expect(leftBehind("const same = process.env === saved;")).toEqual([]);
    expect(leftBehind("vi.mock('../../src/log.js');")).toEqual(['mocks a module']);
    expect(leftBehind('beforeEach(() => vi.useFakeTimers());')).toEqual(['fakes the clock and never gives it back']);
    expect(leftBehind("if (process.env.CI === '1') vi.useFakeTimers(); afterEach(() => vi.useRealTimers());")).toEqual([]);
    expect(leftBehind('const env = { ...process.env, TZ: "UTC" };')).toEqual([]);
  });

  it('leave none behind', () => {
    const found = sourceFiles(TEST)
      .map((file) => relative(TEST, file))
      .filter((file) => file !== GLOBAL_SETUP && file !== relative(TEST, fileURLToPath(import.meta.url)))
      .flatMap((file) => leftBehind(readFileSync(join(TEST, file), 'utf8')).map((why) => `test/${file}: ${why}`));
    expect(found, `${found.join('\n')}\nGive each its own value instead (an env object passed to what it starts, a fake passed in, fake timers restored in afterEach).`).toEqual([]);
  });
});
