/**
 * Small statistics for benchmark samples: percentiles, and the min / median /
 * max spread of a number taken once per round. Pure; no I/O.
 */

/** Nearest-rank percentile (p in 0..100) of unsorted samples; NaN for none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? Number.NaN;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

export function sum(samples: readonly number[]): number {
  return samples.reduce((a, b) => a + b, 0);
}

/** One number measured in each of several rounds. */
export interface Spread {
  readonly min: number;
  readonly median: number;
  readonly max: number;
  readonly n: number;
}

export function spread(values: readonly number[]): Spread {
  const finite = values.filter((v) => Number.isFinite(v));
  return {
    min: finite.length ? Math.min(...finite) : Number.NaN,
    median: median(finite),
    max: finite.length ? Math.max(...finite) : Number.NaN,
    n: finite.length,
  };
}

/** "0.41 (0.30–0.62)": median, then min–max over rounds. */
export function formatSpread(s: Spread, digits = 2, unit = ''): string {
  if (s.n === 0) return 'n/a';
  const f = (v: number): string => `${v.toFixed(digits)}${unit}`;
  return s.n === 1 ? f(s.median) : `${f(s.median)} (${f(s.min)}–${f(s.max)})`;
}

/** Rotates `items` by `round`, so each variant goes first in turn and none always runs on a warmer machine. */
export function rotate<T>(items: readonly T[], round: number): T[] {
  const k = items.length === 0 ? 0 : round % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}
