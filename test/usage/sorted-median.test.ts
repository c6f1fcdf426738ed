/**
 * The median of sorted lists taken together, by selection, against sorting them
 * all into one: lists of every length, with repeated values, odd and even counts.
 */
import { describe, expect, it } from 'vitest';
import { medianOfSorted } from '../../src/usage/sorted-median.js';

function sortedMedian(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1]! + s[mid]!) / 2;
}

/** A fixed pseudo-random sequence, so a failure repeats. */
function numbers(seed: number): () => number {
  let x = seed;
  return () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

describe('medianOfSorted', () => {
  it('is undefined for no values, and the value itself for one', () => {
    expect(medianOfSorted([])).toBeUndefined();
    expect(medianOfSorted([[], []])).toBeUndefined();
    expect(medianOfSorted([[], [7.5]])).toBe(7.5);
  });

  it('equals the median of all the values sorted together, for 500 sets of lists', () => {
    const next = numbers(42);
    for (let round = 0; round < 500; round++) {
      const lists = Array.from({ length: 1 + Math.floor(next() * 40) }, () =>
        Array.from({ length: Math.floor(next() * 30) }, () => (next() < 0.3 ? Math.floor(next() * 5) : next() * 5000)).sort((a, b) => a - b),
      );
      expect(medianOfSorted(lists)).toBe(sortedMedian(lists.flat()));
    }
  });

  it('equals it for a year of speeds in few lists or many (thousands of values each time)', () => {
    const next = numbers(11);
    for (const [count, length] of [[13, 2300], [366, 80], [2, 5000], [40, 150]] as const) {
      const lists = Array.from({ length: count }, () => Array.from({ length: Math.floor(length * (0.5 + next())) }, () => next() * 5000).sort((a, b) => a - b));
      expect(medianOfSorted(lists)).toBe(sortedMedian(lists.flat()));
      lists[0]!.push(5001); // the count odd or even the other way
      expect(medianOfSorted(lists)).toBe(sortedMedian(lists.flat()));
    }
  });

  it('reads views of stored floats as it reads arrays', () => {
    const floats = Float64Array.from([1, 2, 3, 40, 50, 60]);
    expect(medianOfSorted([floats.subarray(0, 3), floats.subarray(3), [4, 5]])).toBe(4.5);
  });

  it('ends, with some value, for lists out of order or holding NaN (a damaged index)', () => {
    const next = numbers(7);
    for (let round = 0; round < 100; round++) {
      // Over 4,096 values: the lists are selected from, not copied and sorted.
      const lists = Array.from({ length: 15 + Math.floor(next() * 10) }, () => Array.from({ length: 300 + Math.floor(next() * 100) }, () => (next() < 0.05 ? Number.NaN : next() * 5000)));
      expect(typeof medianOfSorted(lists)).toBe('number');
    }
  });

  it('takes the two middle values from different lists when the count is even', () => {
    expect(medianOfSorted([[1, 10], [2, 3]])).toBe(2.5);
    expect(medianOfSorted([[5, 5, 5], [5]])).toBe(5);
  });
});
