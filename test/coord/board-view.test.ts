/** The slot board's views on their own: what a reading says and what a change may do, with no file involved. */
import { describe, expect, it } from 'vitest';
import { BoardDraft, BoardView, emptyBoard } from '../../src/coord/board-view.js';

const me = { pid: 100, start: 'a' };
const other = { pid: 200, start: 'b' };

describe('board views', () => {
  it("counts a ticket with unknown candidates in every endpoint's queue, and a leased one in none", () => {
    const data = emptyBoard();
    const mine = new BoardDraft(data, me);
    mine.enqueue({ job: 'j1', model: 'qwen' });
    mine.enqueue({ job: 'j2', model: 'gemma' });
    mine.enqueue({ job: 'j3', model: 'qwen' });
    mine.setCandidates('j2', ['cpu']);
    const queue = (endpoint: string): string[] => new BoardView(data, other).queueFor(endpoint).map((q) => `${q.ticket.job}#${q.position}`);
    expect(queue('gpu')).toEqual(['j1#1', 'j3#2']);
    expect(queue('cpu')).toEqual(['j1#1', 'j2#1', 'j3#2']);

    mine.lease('j1', 'gpu');
    expect(queue('gpu')).toEqual(['j3#1']);
    expect(new BoardView(data, me).position('j1')).toBeUndefined();
    mine.setCandidates('j1', ['cpu']); // placed: its candidates no longer matter
    expect(new BoardView(data, me).ticket('j1')).toMatchObject({ endpoint: 'gpu', candidates: undefined });
  });

  it("takes over a session claim whose holder has ended, and refuses one a live job holds", () => {
    const data = emptyBoard();
    new BoardDraft(data, other).enqueue({ job: 'first', model: 'qwen', session: 's' });
    const draft = new BoardDraft(data, me);
    expect(draft.enqueue({ job: 'second', model: 'qwen', session: 's' })).toEqual({ sessionHeldBy: 'first' });
    expect(draft.enqueue({ job: 'second', model: 'qwen', session: 's', endedHolder: 'first' })).toEqual({});
    expect(draft.sessionHolder('s')).toBe('second');
  });

  it("drops only this process's tickets and session claims", () => {
    const data = emptyBoard();
    new BoardDraft(data, other).enqueue({ job: 'theirs', model: 'qwen', session: 's1' });
    const draft = new BoardDraft(data, me);
    draft.enqueue({ job: 'mine', model: 'qwen', session: 's2' });
    draft.remove(() => true);
    expect(draft.tickets.map((t) => t.job)).toEqual(['theirs']);
    expect([draft.sessionHolder('s1'), draft.sessionHolder('s2')]).toEqual(['theirs', undefined]);
  });
});
