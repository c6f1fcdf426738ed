/**
 * Job ids oldest first (ids sort by their UTC creation time), kept end to end in one
 * string, as the listing file holds them: a year's 10,000 ids are one string to
 * slice, not 10,000 strings a report or a status line allocates (and the garbage
 * collector copies twice) before it looks at a dozen of them.
 */
import { JOB_ID_LENGTH } from '../../coord/job-id-shape.js';

export class SortedJobIds implements Iterable<string> {
  private constructor(
    private readonly joined: string,
    /** Where this run of ids starts in `joined`, in ids. */
    private readonly first: number,
    readonly length: number,
  ) {}

  /** From ids end to end, already sorted and of that shape (the caller checked). */
  static fromJoined(joined: string): SortedJobIds {
    return new SortedJobIds(joined, 0, joined.length / JOB_ID_LENGTH);
  }

  /** From ids already sorted. */
  static of(ids: readonly string[]): SortedJobIds {
    return SortedJobIds.fromJoined(ids.join(''));
  }

  /** The id at `i` (from the end when negative), as Array's `at`. */
  at(i: number): string | undefined {
    const k = i < 0 ? this.length + i : i;
    if (k < 0 || k >= this.length) return undefined;
    const start = (this.first + k) * JOB_ID_LENGTH;
    return this.joined.slice(start, start + JOB_ID_LENGTH);
  }

  /** Where `id` goes: the index of the first id not before it. */
  private firstNotBefore(id: string): number {
    let [low, high] = [0, this.length];
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.at(mid) as string) < id) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  has(id: string): boolean {
    return this.at(this.firstNotBefore(id)) === id;
  }

  /** The ids from `from` (inclusive) to `to` (exclusive): ids sort by creation time, so stamps bound them. */
  between(from: string | undefined, to: string | undefined): SortedJobIds {
    const start = from === undefined ? 0 : this.firstNotBefore(from);
    const end = to === undefined ? this.length : this.firstNotBefore(to);
    return new SortedJobIds(this.joined, this.first + start, Math.max(0, end - start));
  }

  /** The newest `n` of them. */
  newest(n: number): SortedJobIds {
    const start = Math.max(0, this.length - n);
    return new SortedJobIds(this.joined, this.first + start, this.length - start);
  }

  /** The ids end to end: compared with a month file's in one step. */
  text(): string {
    return this.joined.slice(this.first * JOB_ID_LENGTH, (this.first + this.length) * JOB_ID_LENGTH);
  }

  toArray(): string[] {
    return Array.from({ length: this.length }, (_, i) => this.at(i) as string);
  }

  *[Symbol.iterator](): Iterator<string> {
    for (let i = 0; i < this.length; i++) yield this.at(i) as string;
  }
}
