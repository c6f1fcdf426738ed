/**
 * Reading other processes from /proc (Linux): CPU time, resident memory and
 * children. Used where the process is not ours to instrument (Claude Code,
 * the alternative gateway, the built server).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** USER_HZ is 100 on every Linux build Node supports; /proc/<pid>/stat counts in these ticks. */
const TICK_MICROS = 10_000;

function statFields(pid: number): string[] | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone
  }
  // The command name (field 2) may hold spaces and parentheses; everything after the last ')' is fixed.
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/** utime + stime of a process in µs (10 ms resolution), or undefined once it is gone. */
export function cpuMicrosOf(pid: number): number | undefined {
  const f = statFields(pid);
  if (f === undefined) return undefined;
  // After the name: state(3) ppid(4) … utime(14) stime(15), so indices 11 and 12 here.
  return (Number(f[11]) + Number(f[12])) * TICK_MICROS;
}

export interface MemoryOf {
  /** Resident now, bytes. */
  readonly rss: number;
  /** Peak resident over the process's life (VmHWM), bytes. */
  readonly peak: number;
}

export function memoryOf(pid: number): MemoryOf | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** Direct children of `pid`. */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const f = statFields(Number(name));
    if (f !== undefined && Number(f[1]) === pid) out.push(Number(name));
  }
  return out;
}

/** The command line of a process, arguments joined by spaces. */
export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}
