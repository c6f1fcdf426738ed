/** Numbers and durations as the status area, the reports and the outage words print them. */
import { describe, expect, it } from 'vitest';
import { formatCount, formatDuration, parseSpan } from '../../src/amounts.js';
import { parseWindowEdge } from '../../src/usage/window-arg.js';

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
    [0, '0 s'],
    [7.46, '7.5 s'],
    [45, '45 s'],
    [59.9, '59.9 s'],
    [59.97, '1 min'],
    [65, '1 min 5 s'],
    [100, '1 min 40 s'],
    [600, '10 min'],
    [3599, '59 min 59 s'],
    [3600, '1 h'],
    [3725, '1 h 2 min'],
  ])('%d s → %s', (s, text) => {
    expect(formatDuration(s)).toBe(text);
  });
});

describe('parseSpan: the one reader of `7d`-style spans (prune --older-than, usage --since / --until)', () => {
  it.each([
    ['0s', 0],
    ['30m', 1_800_000],
    ['12h', 43_200_000],
    [' 7d ', 604_800_000],
    ['2w', 1_209_600_000],
  ])('%s → %d ms', (text, ms) => {
    expect(parseSpan(text)).toBe(ms);
  });
  it.each(['7', 'd', '7x', '-1d', '1.5h', '7 d', '1234567d'])('%s is not a span', (text) => {
    expect(parseSpan(text)).toBeUndefined();
  });
  it('usage --since takes every span prune --older-than takes', () => {
    const now = new Date('2026-12-04T12:00:00.000Z');
    expect(parseWindowEdge('--since', '30m', now).toISOString()).toBe('2026-12-04T11:30:00.000Z');
    expect(parseWindowEdge('--since', '2w', now).toISOString()).toBe('2026-11-20T12:00:00.000Z');
    expect(() => parseWindowEdge('--since', '7x', now)).toThrow(/--since "7x" is neither a date \(2026-12-01\) nor a span back from now \(30m, 12h, 7d, 2w\)/);
  });
});
