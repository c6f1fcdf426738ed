/** What a connected page is sent of the job rows: everything once, then only what changed or went away. */
import { describe, expect, it } from 'vitest';
import { jobListRow } from '../../src/jobs/view/job-facts.js';
import { fullRowsEvent, rowDelta } from '../../src/dashboard/row-delta.js';
import { makeRecord } from './fixtures.js';

describe('row delta', () => {
  it('sends new and changed rows and the ids gone, nothing when nothing changed, and the full set on demand', () => {
    const a = jobListRow(makeRecord({ created: new Date('2026-11-29T10:00:00Z') }));
    const b = jobListRow(makeRecord({ created: new Date('2026-11-29T10:01:00Z'), status: 'running' }));
    const first = rowDelta(new Map(), [a, b]);
    expect(JSON.parse(first.event ?? '')).toEqual({ reset: false, upsert: [a, b], remove: [] });
    expect(rowDelta(first.rows, [a, b]).event).toBeUndefined();

    const bDone = { ...b, status: 'succeeded' as const };
    const second = rowDelta(first.rows, [bDone]);
    expect(JSON.parse(second.event ?? '')).toEqual({ reset: false, upsert: [bDone], remove: [a.id] });
    expect(JSON.parse(fullRowsEvent(second.rows))).toEqual({ reset: true, upsert: [bDone], remove: [] });
  });
});
