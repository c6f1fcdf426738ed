/**
 * The exact median of several sorted lists taken together, without merging them:
 * a year of per-request speeds kept sorted per day gives the year's median by
 * selection (each round drops a quarter of what is left), not by sorting it all.
 * The lists come from the usage index unchecked value by value (checking 100,000
 * stored speeds costs a report more than the rest of it), so a list out of order
 * gives a wrong median, never a loop that does not end.
 */

/** Up to this many values, sorting a copy beats selection in code V8 has not optimised yet (3x faster at 600; 4x slower at 30,000). */
const SORT_AT_MOST = 4096;

/** A list of speeds, ascending: an array, or a view of a month file's stored speeds. */
export type SortedSpeeds = ArrayLike<number>;

/** The lists end to end in one array of floats (to sort, or to store). */
export function concatenated(lists: readonly SortedSpeeds[]): Float64Array {
  const all = new Float64Array(lists.reduce((n, l) => n + l.length, 0));
  let at = 0;
  for (const list of lists) {
    all.set(list, at);
    at += list.length;
  }
  return all;
}

/** First index in [lo, hi) whose value is not below `v` (`orEqual`: above `v`). */
function bound(list: SortedSpeeds, v: number, lo: number, hi: number, orEqual: boolean): number {
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const x = list[mid] as number;
    if (x < v || (orEqual && x === v)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The weighted median of the ranges' middle values: at least a quarter of what is left is on each side of it. */
function pivotOf(lists: readonly SortedSpeeds[], lo: Int32Array, hi: Int32Array, left: number, middles: Float64Array): number {
  const order: number[] = [];
  for (let i = 0; i < lists.length; i++) {
    if (hi[i] === lo[i]) continue;
    middles[i] = (lists[i] as SortedSpeeds)[((lo[i] as number) + (hi[i] as number)) >> 1] as number;
    order.push(i);
  }
  order.sort((a, b) => (middles[a] as number) - (middles[b] as number));
  let weight = 0;
  for (const i of order) {
    weight += (hi[i] as number) - (lo[i] as number);
    if (weight * 2 >= left) return middles[i] as number;
  }
  return middles[order[order.length - 1] as number] as number;
}

/** The k-th smallest (from 0) of all the lists' values; k is below their total length. */
function kth(lists: readonly SortedSpeeds[], k: number): number {
  const m = lists.length;
  const lo = new Int32Array(m);
  const hi = Int32Array.from(lists, (l) => l.length);
  const below = new Int32Array(m);
  const upTo = new Int32Array(m);
  const middles = new Float64Array(m);
  let left = hi.reduce((n, h) => n + h, 0);
  for (;;) {
    const pivot = pivotOf(lists, lo, hi, left, middles);
    let [nBelow, nUpTo] = [0, 0];
    for (let i = 0; i < m; i++) {
      const list = lists[i] as SortedSpeeds;
      below[i] = bound(list, pivot, lo[i] as number, hi[i] as number, false);
      upTo[i] = bound(list, pivot, below[i] as number, hi[i] as number, true);
      nBelow += (below[i] as number) - (lo[i] as number);
      nUpTo += (upTo[i] as number) - (lo[i] as number);
    }
    if (k >= nBelow && k < nUpTo) return pivot;
    const before = left;
    if (k < nBelow) {
      hi.set(below);
      left = nBelow;
    } else {
      k -= nUpTo;
      lo.set(upTo);
      left -= nUpTo;
    }
    // Sorted lists always drop the pivot's own value; lists that dropped nothing are out of order.
    if (left === before) return pivot;
  }
}

/** The k-th smallest value, given that `value` is the (k-1)-th: the same again, or the least above it. */
function following(lists: readonly SortedSpeeds[], value: number, k: number): number {
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
export function medianOfSorted(lists: readonly SortedSpeeds[]): number | undefined {
  // Most rows (a day of one model) have one list: their median is its middle, with no list made.
  const full = lists.length === 1 ? lists : lists.filter((l) => l.length > 0);
  const n = full.reduce((sum, l) => sum + l.length, 0);
  if (n === 0) return undefined;
  const mid = n >> 1;
  if (full.length === 1) {
    const only = full[0] as SortedSpeeds;
    return n % 2 === 1 ? only[mid] : ((only[mid - 1] as number) + (only[mid] as number)) / 2;
  }
  if (n <= SORT_AT_MOST) {
    // A week's or a month's few thousand speeds: copied and sorted natively, ~3x faster than selecting in cold code.
    const all = concatenated(full).sort();
    return n % 2 === 1 ? all[mid] : ((all[mid - 1] as number) + (all[mid] as number)) / 2;
  }
  if (n % 2 === 1) return kth(full, mid);
  const low = kth(full, mid - 1);
  return (low + following(full, low, mid)) / 2;
}
