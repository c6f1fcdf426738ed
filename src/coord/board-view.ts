/**
 * What the slot board holds, and the one way to read and change it: per job, a
 * ticket (waiting in its model's FIFO, or leased on an endpoint) and, per resumed
 * Claude Code session, the job that runs it. Pure: coord/slot-board.ts reads and
 * writes the file under its lock, and hands these views to its callers.
 */
import { sameProcess, type ProcessIdentity } from './process-identity.js';

export interface Ticket {
  job: string;
  owner: ProcessIdentity;
  /** The FIFO this ticket waits in: the requested model (and pinned endpoint, if any). */
  model: string;
  /** Board-wide enqueue order. */
  seq: number;
  /** Set once placed: the endpoint whose slot this job holds. */
  endpoint?: string | undefined;
  /** Set once placed: the id served there that the job uses (a router keeps it loaded for the job). */
  served?: string | undefined;
  /** Endpoints that could serve it, as its owner last resolved; a later job may not take a slot here first. */
  candidates?: string[] | undefined;
}

export interface BoardData {
  seq: number;
  tickets: Ticket[];
  /** Claude Code session id → the job running it. */
  sessions: Record<string, { job: string; owner: ProcessIdentity }>;
}

export function emptyBoard(): BoardData {
  return { seq: 0, tickets: [], sessions: {} };
}

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

  /** The served models jobs hold on `endpoint`, each with the jobs holding it (of every process). */
  modelsHeldOn(endpoint: string): Map<string, string[]> {
    const held = new Map<string, string[]>();
    for (const t of this.data.tickets) {
      if (t.endpoint !== endpoint || t.served === undefined) continue;
      held.set(t.served, [...(held.get(t.served) ?? []), t.job]);
    }
    return held;
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
  lease(job: string, endpoint: string, served?: string): void {
    this.replace(job, (t) => ({ ...t, endpoint, served, candidates: undefined }));
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
