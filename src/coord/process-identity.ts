/**
 * Who owns a piece of shared state, as other processes can check it: a PID alone is
 * not enough, because PIDs are reused, so an owner is its PID plus the time its
 * process started. Every cross-process record (locks, leases, job owners) names one.
 */
import { readFileSync } from 'node:fs';

export interface ProcessIdentity {
  readonly pid: number;
  /** Opaque start-time token of the process, as this platform reports it; undefined when it cannot be read. */
  readonly start?: string | undefined;
}

/** The start-time token of `pid`, or undefined when no such process exists (or it cannot be read). */
export function processStartTime(pid: number): string | undefined {
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  if (process.platform === 'linux') return linuxStartTime(pid);
  return psStartTime(pid);
}

/** This process's identity, read once. */
export const selfIdentity: ProcessIdentity = { pid: process.pid, start: processStartTime(process.pid) };

/**
 * Whether the process named by `owner` is still the one that wrote it: alive, and (when both
 * start times are known) started at the same moment, so a reused PID reads as dead.
 */
export function isAlive(owner: ProcessIdentity): boolean {
  if (!pidExists(owner.pid)) return false;
  if (owner.start === undefined) return true; // an old record without a start time: trust the PID
  const now = processStartTime(owner.pid);
  return now === undefined || now === owner.start;
}

export function sameProcess(a: ProcessIdentity, b: ProcessIdentity): boolean {
  return a.pid === b.pid && a.start === b.start;
}

/** Serialised form used in lock files and leases: `<pid> <start>`; parse with `parseIdentity`. */
export function formatIdentity(owner: ProcessIdentity): string {
  return `${owner.pid} ${owner.start ?? '-'}`;
}

export function parseIdentity(text: string): ProcessIdentity | undefined {
  const match = /^(\d{1,10}) (\S{1,64})/.exec(text.trim());
  if (match === null) return undefined;
  const pid = Number(match[1]);
  const start = match[2] === '-' ? undefined : match[2];
  return { pid, start };
}

function pidExists(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Field 22 of /proc/<pid>/stat: start time in clock ticks since boot (the comm field may hold spaces and parentheses). */
function linuxStartTime(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const afterComm = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // afterComm[0] is field 3 (state), so field 22 is at index 19.
  const ticks = afterComm[19];
  return ticks !== undefined && /^\d+$/.test(ticks) ? ticks : undefined;
}

function psStartTime(pid: number): string | undefined {
  try {
    // node:child_process loaded only here: the status line, which reads /proc, need not pay for it.
    const out = process.getBuiltinModule('node:child_process').execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', timeout: 2000, stdio: ['ignore', 'pipe', 'ignore'] });
    const text = out.trim().replace(/\s+/g, '_');
    return text === '' ? undefined : text;
  } catch {
    return undefined;
  }
}
