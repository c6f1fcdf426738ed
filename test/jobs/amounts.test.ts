/** Numbers and durations as the status area and the reports print them. */
import { describe, expect, it } from 'vitest';
import { formatCount, formatDuration } from '../../src/jobs/view/amounts.js';

describe('formatCount', () => {
  it.each([
    [0, '0'],
    [950, '950'],
    [999.6, '1k'],
    [1000, '1k'],
    [1234, '1.23k'],
    [9994, '9.99k'],
    [9995, '10k'],
    [12_345, '12.3k'],
    [100_000, '100k'],
    [999_949, '999.9k'],
    [999_950, '1M'],
    [2_500_000, '2.5M'],
  ])('%d → %s', (n, text) => {
    expect(formatCount(n)).toBe(text);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0.0 s'],
    [7.46, '7.5 s'],
    [59.9, '59.9 s'],
    [65, '1 min 05 s'],
    [3599, '59 min 59 s'],
    [3725, '1 h 02 min'],
  ])('%d s → %s', (s, text) => {
    expect(formatDuration(s)).toBe(text);
  });
});
