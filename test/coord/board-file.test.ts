/** The slot board's file on its own: what a reader makes of a file it did not expect, and who counts as alive. */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_BOARD_BYTES, readBoardFile, withoutDeadOwners, writeBoardFile } from '../../src/coord/board-file.js';
import { emptyBoard, type BoardData } from '../../src/coord/board-view.js';

const me = { pid: process.pid, start: 'now' };
const dir = (): string => mkdtempSync(join(tmpdir(), 'la-board-file-'));

describe('board file', () => {
  it('reads a missing, oversized, unparsable or misshapen file as an empty board', async () => {
    const d = dir();
    const cases: Record<string, string> = {
      oversized: JSON.stringify({ ...emptyBoard(), pad: 'x'.repeat(MAX_BOARD_BYTES) }),
      unparsable: '{"seq": 1, "tick',
      misshapen: JSON.stringify({ seq: 1, tickets: [{ job: 'j', model: 'qwen', seq: 1, owner: { pid: -1 } }], sessions: {} }),
    };
    for (const [name, text] of Object.entries(cases)) writeFileSync(join(d, name), text);
    for (const name of ['missing', ...Object.keys(cases)]) expect(await readBoardFile(join(d, name)), name).toEqual(emptyBoard());
  });

  it('reads back what it wrote, and leaves no temp file beside it', async () => {
    const d = dir();
    const data: BoardData = { seq: 2, tickets: [{ job: 'j1', owner: me, model: 'qwen', seq: 2, endpoint: 'gpu' }], sessions: { s: { job: 'j1', owner: me } } };
    await writeBoardFile(join(d, 'slots.json'), data, me);
    expect(await readBoardFile(join(d, 'slots.json'))).toEqual(data);
    expect(readdirSync(d)).toEqual(['slots.json']);
  });

  it("leaves out dead owners' tickets and the session claims left without a ticket, asking once per owner", () => {
    const dead = { pid: 7, start: 'gone' };
    const live = { pid: 8, start: 'here' };
    const data: BoardData = {
      seq: 3,
      tickets: [
        { job: 'd1', owner: dead, model: 'qwen', seq: 1 },
        { job: 'd2', owner: dead, model: 'qwen', seq: 2 },
        { job: 'l1', owner: live, model: 'qwen', seq: 3 },
      ],
      sessions: { a: { job: 'd1', owner: dead }, b: { job: 'l1', owner: live }, c: { job: 'ended', owner: live } },
    };
    const asked: number[] = [];
    const alive = (owner: { pid: number }): boolean => (asked.push(owner.pid), owner.pid === live.pid);
    const { data: left, pruned } = withoutDeadOwners(data, me, alive);
    expect(pruned).toBe(true);
    expect(left.tickets.map((t) => t.job)).toEqual(['l1']);
    expect(Object.keys(left.sessions)).toEqual(['b']);
    expect(asked.sort()).toEqual([7, 8]);
    expect(withoutDeadOwners(left, me, alive).pruned).toBe(false);
  });
});
