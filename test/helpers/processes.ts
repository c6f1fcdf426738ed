/** Waiting on conditions and looking at processes, for tests that start real Claude Code sessions. */
import { readdirSync, readFileSync } from 'node:fs';

/** Polls until `check` is true or `timeoutMs` passes; returns whether it became true. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, stepMs = 50): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  return check();
}

/** `until`, but a timeout is an error that says what was awaited. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 60_000, what = 'condition'): Promise<void> {
  if (!(await until(check, timeoutMs, 100))) throw new Error(`timed out waiting for ${what}`);
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Command lines of every live process, from /proc (Linux). */
export function processCommandLines(): Map<number, string> {
  const out = new Map<number, string>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const raw = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      // Zombies have an empty cmdline: they are gone in every way that matters.
      if (raw !== '') out.set(Number(name), raw.replace(/\0/g, ' ').trim());
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

