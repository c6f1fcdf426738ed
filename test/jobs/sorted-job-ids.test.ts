/**
 * Job ids kept end to end in one string (src/jobs/record/sorted-job-ids.ts) against the
 * same ids as an array: every way a report or a lookup reads them.
 */
import { describe, expect, it } from 'vitest';
import { SortedJobIds } from '../../src/jobs/record/sorted-job-ids.js';

const ids = ['20261101-080000-aaaaaaaaaaaa', '20261202-090000-bbbbbbbbbbbb', '20261203-100000-cccccccccccc', '20261203-100001-dddddddddddd'];
const sorted = SortedJobIds.of(ids);

describe('SortedJobIds', () => {
  it('reads back the ids it was made of, by index from either end and in order', () => {
    expect(sorted.length).toBe(4);
    expect([...sorted]).toEqual(ids);
    expect(sorted.toArray()).toEqual(ids);
    expect([sorted.at(0), sorted.at(3), sorted.at(-1), sorted.at(-4), sorted.at(4), sorted.at(-5)]).toEqual([ids[0], ids[3], ids[3], ids[0], undefined, undefined]);
    expect(SortedJobIds.fromJoined(sorted.text()).toArray()).toEqual(ids);
    expect(sorted.text()).toBe(ids.join(''));
  });

  it('bounds ids by stamps: from inclusive, to exclusive, either open; and runs of runs', () => {
    expect(sorted.between('20261202', undefined).toArray()).toEqual(ids.slice(1));
    expect(sorted.between(undefined, '20261202').toArray()).toEqual(ids.slice(0, 1));
    expect(sorted.between('202612', '202612~').toArray()).toEqual(ids.slice(1));
    expect(sorted.between(ids[1], ids[2]).toArray()).toEqual([ids[1]]);
    expect(sorted.between('2027', undefined).toArray()).toEqual([]);
    expect(sorted.between('2027', '2026').length).toBe(0);
    expect(SortedJobIds.of([]).between('2026', '2027').toArray()).toEqual([]);
    const december = sorted.between('202612', '202612~');
    expect(december.between('20261203', undefined).toArray()).toEqual(ids.slice(2));
    expect(december.at(-1)).toBe(ids[3]);
    expect(december.text()).toBe(ids.slice(1).join(''));
    expect(december.newest(2).toArray()).toEqual(ids.slice(2));
    expect(sorted.newest(10).toArray()).toEqual(ids);
  });

  it('knows which ids it holds, and no others', () => {
    for (const id of ids) expect(sorted.has(id)).toBe(true);
    for (const id of ['20261101-080000-aaaaaaaaaaab', '20261101', '', '20271203-100001-dddddddddddd']) expect(sorted.has(id)).toBe(false);
    expect(sorted.between('202612', undefined).has(ids[0]!)).toBe(false);
  });
});
