/**
 * The slot board: where the localagents processes sharing a state directory agree
 * on GPU slots. It holds, per job, a ticket: waiting (queued, in one FIFO per model
 * across processes) or leased (holding a slot on an endpoint from placement to the
 * end of the job); and, per resumed Claude Code session, the job that runs it.
 *
 * One small JSON file, changed only under its lock and replaced atomically. Every
 * entry names its owner by PID + start time: entries of a dead owner (or a reused
 * PID) are ignored by every reader at once and dropped by the next writer, so a
 * crashed process frees its leases the moment anyone looks.
 */
import { watch, type FSWatcher } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withFileLock } from './file-lock.js';
import { ownedFileName, removeDeadOwnersFiles } from './owned-files.js';
import { isAlive, sameProcess, selfIdentity, type ProcessIdentity } from './process-identity.js';
import { openRegularFile } from './regular-file.js';
import { pathError } from '../path-errors.js';
import { checkShape, type Shape } from '../json-shape.js';

export interface Ticket {
  job: string;
  owner: ProcessIdentity;
  /** The FIFO this ticket waits in: the requested model (and pinned endpoint, if any). */
  model: string;
  /** Board-wide enqueue order. */
  seq: number;
  /** Set once placed: the endpoint whose slot this job holds. */
  endpoint?: string | undefined;
  /** Endpoints that could serve it, as its owner last resolved; a later job may not take a slot here first. */
  candidates?: string[] | undefined;
}

interface BoardData {
  seq: number;
  tickets: Ticket[];
  /** Claude Code session id → the job running it. */
  sessions: Record<string, { job: string; owner: ProcessIdentity }>;
}

// Checked without zod: the status line reads the board on every refresh (src/json-shape.ts).
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
const MAX_BOARD_BYTES = 4 * 1024 * 1024;

/** A consistent reading of the board with dead owners' entries already left out. */
export class BoardView {
  constructor(
    protected readonly data: BoardData,
    readonly self: ProcessIdentity,
  ) {}

  get tickets(): readonly Ticket[] {
    return this.data.tickets;
  }

  ticket(job: string): Ticket | undefined {
    return this.data.tickets.find((t) => t.job === job);
  }

  mine(t: Ticket): boolean {
    return sameProcess(t.owner, this.self);
  }

  /** Waiting tickets, oldest first. */
  waiting(): Ticket[] {
    return this.data.tickets.filter((t) => t.endpoint === undefined).sort((a, b) => a.seq - b.seq);
  }

  leasesOn(endpoint: string): { thisProcess: number; otherProcesses: number } {
    const on = this.data.tickets.filter((t) => t.endpoint === endpoint);
    const ours = on.filter((t) => this.mine(t)).length;
    return { thisProcess: ours, otherProcesses: on.length - ours };
  }

  /**
   * The earlier waiting job that must be placed before `job` may take a slot on
   * `endpoint`: one of the same FIFO, or one that could use the same endpoint (so a
   * stream of jobs for another model cannot starve it). Undefined when none.
   */
  aheadOf(job: string, endpoint: string): Ticket | undefined {
    const own = this.ticket(job);
    if (own === undefined) return undefined;
    return this.waiting().find((t) => t.seq < own.seq && (t.model === own.model || (t.candidates ?? []).includes(endpoint)));
  }

  /** 1-based place of `job` in its model's FIFO across processes. */
  position(job: string): number | undefined {
    const own = this.ticket(job);
    if (own === undefined || own.endpoint !== undefined) return undefined;
    return this.waiting().filter((t) => t.model === own.model && t.seq <= own.seq).length;
  }

  /** Waiting tickets that would run on `endpoint` (those whose candidates are not known yet count everywhere), with their FIFO positions. */
  queueFor(endpoint: string): { ticket: Ticket; position: number }[] {
    return this.waiting()
      .filter((t) => t.candidates === undefined || t.candidates.includes(endpoint))
      .map((ticket) => ({ ticket, position: this.position(ticket.job) ?? 0 }));
  }

  sessionHolder(sessionId: string): string | undefined {
    return this.data.sessions[sessionId]?.job;
  }
}

/** A view that may be changed inside `SlotBoard.change`; the changes are written when the callback returns. */
export class BoardDraft extends BoardView {
  lease(job: string, endpoint: string): void {
    this.replace(job, (t) => ({ ...t, endpoint, candidates: undefined }));
  }

  setCandidates(job: string, candidates: readonly string[]): void {
    const t = this.ticket(job);
    if (t === undefined || t.endpoint !== undefined) return;
    if (t.candidates !== undefined && t.candidates.join('\n') === candidates.join('\n')) return;
    this.replace(job, (old) => ({ ...old, candidates: [...candidates] }));
  }

  /** Adds a waiting ticket at the end of its FIFO; refused (returning the holder) when a live job runs `session`. */
  enqueue(request: EnqueueRequest): { sessionHeldBy?: string } {
    if (request.session !== undefined) {
      const holder = this.sessionHolder(request.session);
      if (holder !== undefined && holder !== request.job && holder !== request.endedHolder) return { sessionHeldBy: holder };
      this.data.sessions[request.session] = { job: request.job, owner: this.self };
    }
    this.data.seq += 1;
    this.data.tickets.push({ job: request.job, owner: this.self, model: request.model, seq: this.data.seq });
    return {};
  }

  /** Drops this process's entries for which `drop` holds: tickets and the session claims of their jobs. */
  remove(drop: (job: string) => boolean): void {
    this.data.tickets = this.data.tickets.filter((t) => !(this.mine(t) && drop(t.job)));
    for (const [session, claim] of Object.entries(this.data.sessions)) {
      if (sameProcess(claim.owner, this.self) && drop(claim.job)) delete this.data.sessions[session];
    }
  }

  private replace(job: string, fn: (t: Ticket) => Ticket): void {
    this.data.tickets = this.data.tickets.map((t) => (t.job === job && this.mine(t) ? fn(t) : t));
  }
}

export interface EnqueueRequest {
  readonly job: string;
  readonly model: string;
  /** For a resumed session: claimed for this job, or refused when another live job holds it. */
  readonly session?: string | undefined;
  /** A holder of `session` whose record has already ended (its owner has not released it yet): its claim is taken over. */
  readonly endedHolder?: string | undefined;
}

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

  const readData = async (): Promise<BoardData> => {
    let text: string;
    try {
      const handle = await openRegularFile(file);
      try {
        const buffer = Buffer.alloc(MAX_BOARD_BYTES + 1);
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
        if (bytesRead > MAX_BOARD_BYTES) return empty();
        text = buffer.subarray(0, bytesRead).toString('utf8');
      } finally {
        await handle.close();
      }
    } catch {
      return empty();
    }
    try {
      const parsed = checkShape<BoardData>(JSON.parse(text), boardShape);
      return parsed.ok ? parsed.value : empty();
    } catch {
      return empty(); // a board we cannot read is rebuilt by the live processes' next changes
    }
  };

  /** Leaves out dead owners' entries; checks each owner once per reading. */
  const prune = (data: BoardData): { data: BoardData; pruned: boolean } => {
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
  };

  const write = async (data: BoardData): Promise<void> => {
    // The temp name carries its owner: one left by a SIGKILL is swept by the next writer (below).
    const temp = ownedFileName(file, 'tmp', self);
    await writeFile(temp, JSON.stringify(data), { mode: 0o600 });
    await rename(temp, file);
  };

  /**
   * When the state directory cannot be written (full, read-only, not a directory), jobs
   * must still run: this process then keeps a board of its own, for the rest of its life,
   * and coordinates only its own jobs (said once through `onLocalFallback`).
   */
  let local: BoardData | undefined;
  const changeLocal = <T>(fn: (draft: BoardDraft) => T): T => fn(new BoardDraft((local ??= empty()), self));

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
        const { data, pruned } = prune(await readData());
        const before = JSON.stringify(data);
        const draft = new BoardDraft(data, self);
        const result = fn(draft);
        if (pruned || JSON.stringify(data) !== before) await write(data);
        return result;
      },
      { staleMs: 3000 },
    );
  };

  return {
    file,
    async read() {
      return new BoardView(local ?? prune(await readData()).data, self);
    },
    change,
    enqueue: (request) => change((draft) => draft.enqueue(request)),
    release: (job) => change((draft) => draft.remove((j) => j === job)),
    releaseAll: () => change((draft) => draft.remove(() => true)),
    watch(onChange) {
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
    },
  };
}

function empty(): BoardData {
  return { seq: 0, tickets: [], sessions: {} };
}
