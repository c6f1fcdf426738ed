// How long something has waited, in this process, is measured on performance.now(): the wall clock can be set
// forward or back (NTP, a laptop's suspend, a person), and an outage wait, a queue's grace or a lock's bound that
// read it ended at once when it jumped. The wall clock stays for what is told and for times kept in files
// (an mtime, a record's `*_at`), which only it can compare.
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from './import-graph.js';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

/** Arithmetic on Date.now(): a deadline or an elapsed time. */
const WALL_ARITHMETIC = /Date\.now\(\)\s*[-+]|[-+]\s*Date\.now\(\)/;
/** A time that came from a file or a record: only the wall clock can be compared with it. */
const KEPT_TIME = /mtime|Date\.parse\(|_at\b/;

/** The lines of `text` that measure a wait on the wall clock. */
function wallClockWaits(text: string): string[] {
  return text.split('\n').filter((line) => WALL_ARITHMETIC.test(line) && !KEPT_TIME.test(line));
}

describe('waits measured on the wall clock', () => {
  it('finds a deadline or an elapsed time on Date.now(), not a comparison with a kept time', () => {
    expect(wallClockWaits('const deadline = Date.now() + timeoutMs;')).toHaveLength(1);
    expect(wallClockWaits('if (Date.now() - since >= waitS * 1000) {')).toHaveLength(1);
    expect(wallClockWaits('const left = deadline - Date.now();')).toHaveLength(1);
    expect(wallClockWaits('if (Date.now() - before.mtimeMs > SETTLED_MS) {')).toEqual([]);
    expect(wallClockWaits('const ranS = (Date.now() - Date.parse(record.started_at)) / 1000;')).toEqual([]);
    expect(wallClockWaits('const began = performance.now() - t0;')).toEqual([]);
  });

  it('none in src/', () => {
    const found = sourceFiles(SRC).flatMap((file) => wallClockWaits(readFileSync(file, 'utf8')).map((line) => `src/${relative(SRC, file)}: ${line.trim()}`));
    expect(found, `${found.join('\n')}\nMeasure it with performance.now(): the wall clock jumps.`).toEqual([]);
  });
});
