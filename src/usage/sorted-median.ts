/**
 * The exact median of several sorted lists taken together, without merging them:
 * a year of per-request speeds kept sorted per day gives the year's median by
 * selection (each round drops a quarter of what is left), not by sorting it all.
 */

/** First index in [lo, hi) whose value is not below `v` (`orEqual`: above `v`). */
function bound(list: readonly number[], v: number, lo: number, hi: number, orEqual: boolean): number {
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const x = list[mid] as number;
    if (x < v || (orEqual && x === v)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The weighted median of the ranges' middle values: at least a quarter of what is left is on each side of it. */
function pivotOf(lists: readonly (readonly number[])[], lo: number[], hi: number[]): number {
  const middles: Array<[number, number]> = [];
  let left = 0;
  for (const [i, list] of lists.entries()) {
    const n = (hi[i] as number) - (lo[i] as number);
    if (n > 0) middles.push([list[((lo[i] as number) + (hi[i] as number)) >> 1] as number, n]);
    left += n;
  }
  middles.sort((a, b) => a[0] - b[0]);
  let weight = 0;
  for (const [value, n] of middles) {
    weight += n;
    if (weight * 2 >= left) return value;
  }
  return (middles[middles.length - 1] as [number, number])[0];
}

/** The k-th smallest (from 0) of all the lists' values; k is below their total length. */
function kth(lists: readonly (readonly number[])[], k: number): number {
  const lo = lists.map(() => 0);
  const hi = lists.map((l) => l.length);
  for (;;) {
    const pivot = pivotOf(lists, lo, hi);
    const below = lists.map((l, i) => bound(l, pivot, lo[i] as number, hi[i] as number, false));
    const upTo = lists.map((l, i) => bound(l, pivot, below[i] as number, hi[i] as number, true));
    const nBelow = below.reduce((n, b, i) => n + b - (lo[i] as number), 0);
    const nUpTo = upTo.reduce((n, u, i) => n + u - (lo[i] as number), 0);
    if (k < nBelow) {
      for (const [i, b] of below.entries()) hi[i] = b;
    } else if (k < nUpTo) {
      return pivot;
    } else {
      k -= nUpTo;
      for (const [i, u] of upTo.entries()) lo[i] = u;
    }
  }
}

/** The k-th smallest value, given that `value` is the (k-1)-th: the same again, or the least above it. */
function following(lists: readonly (readonly number[])[], value: number, k: number): number {
  let upTo = 0;
  let above = Infinity;
  for (const list of lists) {
    const i = bound(list, value, 0, list.length, true);
    upTo += i;
    if (i < list.length) above = Math.min(above, list[i] as number);
  }
  return upTo > k ? value : above;
}

/** The median of the lists' values put together (an even count: the mean of the middle two); each list is sorted ascending. */
export function medianOfSorted(lists: readonly (readonly number[])[]): number | undefined {
  const full = lists.filter((l) => l.length > 0);
  const n = full.reduce((sum, l) => sum + l.length, 0);
  if (n === 0) return undefined;
  const mid = n >> 1;
  if (full.length === 1) {
    const only = full[0] as readonly number[];
    return n % 2 === 1 ? only[mid] : ((only[mid - 1] as number) + (only[mid] as number)) / 2;
  }
  if (n % 2 === 1) return kth(full, mid);
  const low = kth(full, mid - 1);
  return (low + following(full, low, mid)) / 2;
}
