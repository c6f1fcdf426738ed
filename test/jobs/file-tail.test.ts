/** Following a growing transcript: only whole lines, nothing twice, UTF-8 intact across writes. */
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createFileTail } from '../../src/jobs/tracking/file-tail.js';

describe('createFileTail', () => {
  const dir = mkdtempSync(join(tmpdir(), 'la-tail-'));
  afterEach(() => rmSync(join(dir, 'transcript.txt'), { force: true }));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads nothing from a file that does not exist yet, then its lines once written', async () => {
    const file = join(dir, 'transcript.txt');
    const tail = createFileTail(file);
    expect(await tail.read()).toEqual([]);
    appendFileSync(file, 'one\ntwo\n');
    expect(await tail.read()).toEqual(['one', 'two']);
    expect(await tail.read()).toEqual([]);
  });

  it('holds back a line until its newline arrives, even when a write splits a UTF-8 character', async () => {
    const file = join(dir, 'transcript.txt');
    const tail = createFileTail(file);
    const bytes = Buffer.from('result: fünf — ok\n', 'utf8');
    const cut = bytes.indexOf(Buffer.from('ü', 'utf8')) + 1; // inside the two bytes of ü
    appendFileSync(file, bytes.subarray(0, cut));
    expect(await tail.read()).toEqual([]);
    expect(tail.rest()).not.toBe('');
    appendFileSync(file, bytes.subarray(cut));
    expect(await tail.read()).toEqual(['result: fünf — ok']);
    expect(tail.rest()).toBe('');
  });
});
