/**
 * The slot board's file: read with a byte limit and checked without zod (the status
 * line reads it on every refresh, src/json-shape.ts), written whole to an owned temp
 * name and renamed over, so a reader sees the old board or the new one, never half.
 * Callers change it only under coord/slot-board.ts's lock.
 */
import { rename, writeFile } from 'node:fs/promises';
import { checkShape, type Shape } from '../json-shape.js';
import { emptyBoard, type BoardData } from './board-view.js';
import { ownedFileName } from './owned-files.js';
import { sameProcess, type ProcessIdentity } from './process-identity.js';
import { openRegularFile } from './regular-file.js';

const identityShape: Shape = { type: 'object', properties: { pid: { type: 'integer', exclusiveMinimum: 0 }, start: { type: 'string' } }, required: ['pid'] };
const boardShape: Shape = {
  type: 'object',
  properties: {
    seq: { type: 'integer' },
    tickets: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          job: { type: 'string' },
          owner: identityShape,
          model: { type: 'string' },
          seq: { type: 'integer' },
          endpoint: { type: 'string' },
          served: { type: 'string' },
          candidates: { type: 'array', items: { type: 'string' } },
        },
        required: ['job', 'owner', 'model', 'seq'],
      },
    },
    sessions: { type: 'object', additionalProperties: { type: 'object', properties: { job: { type: 'string' }, owner: identityShape }, required: ['job', 'owner'] } },
  },
  required: ['seq', 'tickets', 'sessions'],
};

/** The board file is ours and small; anything past this is not one we wrote. */
export const MAX_BOARD_BYTES = 4 * 1024 * 1024;

/** The board in `file`; an empty one when it is missing, too large or not a board (the live processes' next changes rebuild it). */
export async function readBoardFile(file: string): Promise<BoardData> {
  let text: string;
  try {
    const handle = await openRegularFile(file);
    try {
      const buffer = Buffer.alloc(MAX_BOARD_BYTES + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      if (bytesRead > MAX_BOARD_BYTES) return emptyBoard();
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return emptyBoard();
  }
  try {
    const parsed = checkShape<BoardData>(JSON.parse(text), boardShape);
    return parsed.ok ? parsed.value : emptyBoard();
  } catch {
    return emptyBoard();
  }
}

export async function writeBoardFile(file: string, data: BoardData, self: ProcessIdentity): Promise<void> {
  // The temp name carries its owner: one left by a SIGKILL is swept by the next writer (removeDeadOwnersFiles).
  const temp = ownedFileName(file, 'tmp', self);
  await writeFile(temp, JSON.stringify(data), { mode: 0o600 });
  await rename(temp, file);
}

/**
 * The board without dead owners' entries (and without session claims whose job has no
 * ticket left); `pruned` says whether anything was left out. Checks each owner once.
 */
export function withoutDeadOwners(data: BoardData, self: ProcessIdentity, aliveCheck: (owner: ProcessIdentity) => boolean): { data: BoardData; pruned: boolean } {
  const verdict = new Map<string, boolean>();
  const alive = (owner: ProcessIdentity): boolean => {
    if (sameProcess(owner, self)) return true;
    const key = `${owner.pid} ${owner.start ?? '-'}`;
    let known = verdict.get(key);
    if (known === undefined) verdict.set(key, (known = aliveCheck(owner)));
    return known;
  };
  const tickets = data.tickets.filter((t) => alive(t.owner));
  const sessions = Object.fromEntries(Object.entries(data.sessions).filter(([, claim]) => alive(claim.owner) && tickets.some((t) => t.job === claim.job)));
  const pruned = tickets.length !== data.tickets.length || Object.keys(sessions).length !== Object.keys(data.sessions).length;
  return { data: { seq: data.seq, tickets, sessions }, pruned };
}
