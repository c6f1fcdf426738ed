/**
 * What Ctrl-C means under `localagents run`: on a terminal it asks whether to
 * cancel the job or detach from it; elsewhere it cancels. The job runs inside
 * the run process, so detaching stops the display, not the process.
 */

export type InterruptChoice = 'cancel' | 'detach' | 'continue';

/** One key from the question: c cancels (so does a second Ctrl-C), d detaches, anything else keeps following. */
export function choiceOf(key: string | undefined): InterruptChoice {
  if (key === undefined) return 'continue';
  const k = key.trim().toLowerCase();
  if (key === '\x03' || k === 'c' || k === 'y') return 'cancel';
  if (k === 'd') return 'detach';
  return 'continue';
}

export function interruptQuestion(id: string, pid: number): string {
  return `Ctrl-C: [c] cancel job ${id}  [d] detach (stop showing it; it keeps running in this process, pid ${pid})  [other key] keep following `;
}

export function detachedText(id: string, pid: number): string {
  return [
    `detached: job ${id} keeps running inside this process (pid ${pid}), which exits when the job ends. Nothing more is shown here.`,
    `  follow it:      localagents log ${id} -f`,
    `  cancel it:      localagents cancel ${id}   (or Ctrl-C here)`,
    '  get the shell:  Ctrl-Z, then bg',
  ].join('\n');
}
