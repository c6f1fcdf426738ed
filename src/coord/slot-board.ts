/**
 * The slot board: where the localagents processes sharing a state directory agree
 * on GPU slots. It holds, per job, a ticket: waiting (queued, in one FIFO per model
 * across processes) or leased (holding a slot on an endpoint from placement to the
 * end of the job); and, per resumed Claude Code session, the job that runs it
 * (what it holds and how it changes: ./board-view.ts).
 *
 * One small JSON file (./board-file.ts), changed only under its lock and replaced
 * atomically. Every entry names its owner by PID + start time: entries of a dead
 * owner (or a reused PID) are ignored by every reader at once and dropped by the
 * next writer, so a crashed process frees its leases the moment anyone looks.
 */
import { watch, type FSWatcher } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathError } from '../path-errors.js';
import { readBoardFile, withoutDeadOwners, writeBoardFile } from './board-file.js';
import { BoardDraft, BoardView, emptyBoard, type BoardData, type EnqueueRequest } from './board-view.js';
import { withFileLock } from './file-lock.js';
import { removeDeadOwnersFiles } from './owned-files.js';
import { isAlive, selfIdentity, type ProcessIdentity } from './process-identity.js';

// What callers of the board see of its views, so they import from here only.
export type { BoardDraft, BoardView } from './board-view.js';

export interface SlotBoard {
  readonly file: string;
  read(): Promise<BoardView>;
  /** Runs `fn` on the board under its lock and writes what it changed. */
  change<T>(fn: (draft: BoardDraft) => T): Promise<T>;
  /** Adds a waiting ticket at the end of its FIFO; returns the job already running `session` instead, without adding anything. */
  enqueue(request: EnqueueRequest): Promise<{ sessionHeldBy?: string }>;
  /** Drops the job's ticket (its lease, if placed) and its session claim. */
  release(job: string): Promise<void>;
  /** Drops every entry of this process (shutdown). */
  releaseAll(): Promise<void>;
  /** Calls `onChange` (debounced) whenever another process (or this one) changes the board; returns a stop function. */
  watch(onChange: () => void): () => void;
}

export interface SlotBoardOptions {
  readonly self?: ProcessIdentity;
  readonly alive?: (owner: ProcessIdentity) => boolean;
  /** Told once when the state directory cannot hold the board and this process falls back to its own. */
  readonly onLocalFallback?: (reason: string) => void;
}

/**
 * Errors that mean the state directory cannot hold the board at all (as opposed to a busy
 * lock): unwritable, or in the wrong shape (a file where coord/ belongs, a folder for slots.json).
 */
const UNWRITABLE = new Set(['ENOENT', 'ENOTDIR', 'EROFS', 'ENOSPC', 'EACCES', 'EPERM', 'EDQUOT', 'EEXIST', 'EISDIR', 'ELOOP', 'EFTYPE']);

/** The errno error under the lock's wrapping, for its words. */
function unwrapped(err: unknown): unknown {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) if (typeof (e as NodeJS.ErrnoException).path === 'string') return e;
  return err;
}

function unwritableCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== undefined && UNWRITABLE.has(code)) return code;
  }
  return undefined;
}

export function createSlotBoard(stateDir: string, options: SlotBoardOptions = {}): SlotBoard {
  const dir = join(stateDir, 'coord');
  const file = join(dir, 'slots.json');
  const lock = join(dir, 'slots.lock');
  const self = options.self ?? selfIdentity;
  const aliveCheck = options.alive ?? isAlive;
  const readLive = async (): Promise<{ data: BoardData; pruned: boolean }> => withoutDeadOwners(await readBoardFile(file), self, aliveCheck);

  /**
   * When the state directory cannot be written (full, read-only, not a directory), jobs
   * must still run: this process then keeps a board of its own, for the rest of its life,
   * and coordinates only its own jobs (said once through `onLocalFallback`).
   */
  let local: BoardData | undefined;
  const changeLocal = <T>(fn: (draft: BoardDraft) => T): T => fn(new BoardDraft((local ??= emptyBoard()), self));

  const change = async <T>(fn: (draft: BoardDraft) => T): Promise<T> => {
    if (local !== undefined) return changeLocal(fn);
    try {
      return await changeShared(fn);
    } catch (err) {
      const code = unwritableCode(err);
      if (code === undefined) throw err;
      options.onLocalFallback?.(`cannot write ${file} (${pathError(unwrapped(err))?.message ?? code}); slots are shared with other localagents processes again once this server restarts on a writable state directory`);
      return changeLocal(fn);
    }
  };

  const changeShared = async <T>(fn: (draft: BoardDraft) => T): Promise<T> => {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return withFileLock(
      lock,
      async () => {
        await removeDeadOwnersFiles(file, ['tmp']);
        const { data, pruned } = await readLive();
        const before = JSON.stringify(data);
        const result = fn(new BoardDraft(data, self));
        if (pruned || JSON.stringify(data) !== before) await writeBoardFile(file, data, self);
        return result;
      },
      { staleMs: 3000 },
    );
  };

  return {
    file,
    async read() {
      return new BoardView(local ?? (await readLive()).data, self);
    },
    change,
    enqueue: (request) => change((draft) => draft.enqueue(request)),
    release: (job) => change((draft) => draft.remove((j) => j === job)),
    releaseAll: () => change((draft) => draft.remove(() => true)),
    watch: (onChange) => watchBoard(dir, onChange),
  };
}

/** Calls `onChange`, debounced, when slots.json in `dir` changes; returns a stop function. */
function watchBoard(dir: string, onChange: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  let stopped = false;
  const fire = (): void => {
    timer ??= setTimeout(() => {
      timer = undefined;
      onChange();
    }, 20);
  };
  void mkdir(dir, { recursive: true, mode: 0o700 })
    .then(() => {
      if (stopped) return;
      watcher = watch(dir, { persistent: false }, (_event, name) => {
        if (name === null || name === 'slots.json') fire();
      });
      watcher.on('error', () => undefined); // the caller's poll still runs
    })
    .catch(() => undefined);
  return () => {
    stopped = true;
    clearTimeout(timer);
    watcher?.close();
  };
}
