/**
 * Speeds as a month file stores them: exact floats back, from bytes wherever they
 * sit in a buffer, and nothing from bytes of another length.
 */
import { describe, expect, it } from 'vitest';
import { decodeSpeeds, encodeSpeeds } from '../../src/usage/stored-speeds.js';

const lists = [[1.5, 3741.1764705882351, 1e-9], [], [Number.MAX_VALUE], [0, 0.1 + 0.2]];

describe('stored speeds', () => {
  it('come back exactly, list by list', () => {
    const bytes = encodeSpeeds(lists);
    expect(bytes.length).toBe(8 * 6);
    expect(decodeSpeeds(bytes, [3, 0, 1, 2])?.map((l) => Array.from(l))).toEqual(lists);
  });

  it('come back from bytes at any offset (a first line edited to another length)', () => {
    const bytes = encodeSpeeds(lists);
    for (const offset of [1, 3, 8, 13]) {
      const shifted = Buffer.alloc(offset + bytes.length);
      bytes.copy(shifted, offset);
      expect(decodeSpeeds(shifted.subarray(offset), [3, 0, 1, 2])?.map((l) => Array.from(l))).toEqual(lists);
    }
  });

  it('are not read from bytes that hold more or fewer floats than the cells say', () => {
    const bytes = encodeSpeeds(lists);
    expect(decodeSpeeds(bytes, [3, 0, 1, 1])).toBeUndefined();
    expect(decodeSpeeds(bytes, [3, 0, 1, 3])).toBeUndefined();
    expect(decodeSpeeds(bytes.subarray(1), [3, 0, 1, 2])).toBeUndefined();
  });
});
