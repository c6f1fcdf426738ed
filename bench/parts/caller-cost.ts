/**
 * Part 10: what one delegation costs the caller. The real Claude Code is the caller, its model scripted to follow
 * the tools' defaults; the job simulator paces jobs of 1, 5 and 20 minutes (times BENCH_SCALE; the quick mode,
 * BENCH_SCALE under 0.25, leaves the 20-minute job out: it shows the part runs, and the 20-minute row would hold CI
 * for four minutes more).
 * - Before: the real old build, 9b6f45b (the main before issue 37), in BENCH_BEFORE_DIR (a checkout of it after
 *   `npm ci`, which builds it): its run_agent answers at once (wait_s defaults to 0), then wait_job polls, each
 *   call waiting its default 50 s, as its descriptions said. Without BENCH_BEFORE_DIR the before rows are left out.
 * - After, print mode: run_agent without wait arguments returns when the job has finished.
 * - After, interactive (caller-pty.ts): the call comes back as a background task at once, and the result wakes
 *   the caller.
 * Reported per delegation: caller turns, turns spent only polling, bytes the caller re-sent (every turn after the
 * first re-sends the conversation) and the tool-surface bytes on every request, each build's own.
 */
import { join } from 'node:path';
import type { ParsedRequest, Turn } from '../../test/sim/index.js';
import { callerCalls, la, startCallerRig, toolResultTexts, type CallerRig, type CallerRun } from '../../test/caller/rig.js';
import type { PartResult } from '../lib/report.js';
import { interactiveDelegation } from './caller-pty.js';

const MINUTES = [1, 5, 20];
const minutesAt = (scale: number): readonly number[] => (scale < 0.25 ? MINUTES.slice(0, 2) : MINUTES);
/** The commit the before rows run: main before issue 37's round. */
const BEFORE_COMMIT = '9b6f45b';
/** A job turn takes at most this long: the job moves (turns, tool calls) as a real one would. */
const TURN_S = 30;

function jobScript(seconds: number): Turn[] {
  const turns = Math.max(1, Math.ceil(seconds / TURN_S));
  const delayMs = Math.round((seconds * 1000) / turns);
  return [...Array.from({ length: turns }, (_, i): Turn => ({ toolUse: { name: 'Bash', input: { command: `echo ${i}`, description: 'Step' } }, delayMs })), { text: 'Finished.' }];
}

const answer: Turn = { text: 'The local agent finished.' };

/** The old build's defaults: run_agent answers at once; wait_job (default timeout) until the job has ended. */
function before(req: ParsedRequest): Turn {
  if (callerCalls(req) === 0) return { toolUse: { name: la('run_agent'), input: { task: 'Run the steps.' } } };
  const last = toolResultTexts(req).at(-1) ?? '';
  if (!/"status":"(running|queued|starting)"/.test(last)) return answer;
  const id = /\d{8}-\d{6}-[0-9a-z]{12}/.exec(toolResultTexts(req).join('\n'))?.[0] ?? 'last';
  return { toolUse: { name: la('wait_job'), input: { job_id: id } } };
}

const after = (req: ParsedRequest): Turn => (callerCalls(req) === 0 ? { toolUse: { name: la('run_agent'), input: { task: 'Run the steps.' } } } : answer);

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KiB`;

function row(job: string, variant: string, run: CallerRun): string[] {
  const polls = run.toolCalls.filter((c) => c.name === 'wait_job').length;
  return [job, variant, String(run.turns), String(polls), kib(run.resentBytes), `${run.surfaceBytes} B`];
}

/** A caller rig per build: the old one only when BENCH_BEFORE_DIR holds it. */
async function rigs(): Promise<{ now: CallerRig; old?: CallerRig }> {
  const dir = process.env.BENCH_BEFORE_DIR;
  const now = await startCallerRig({ jobSlots: 1 });
  return dir ? { now, old: await startCallerRig({ jobSlots: 1, serverBin: join(dir, 'dist', 'main.cjs') }) } : { now };
}

export async function measureCallerCost(scale: number): Promise<Omit<PartResult, 'part' | 'seconds'>> {
  const { now, old } = await rigs();
  const rows: string[][] = [];
  const targets = [];
  try {
    for (const minutes of minutesAt(scale)) {
      const seconds = Math.max(5, Math.round(minutes * 60 * scale));
      const job = `${minutes} min (${seconds} s)`;
      if (old !== undefined) {
        old.jobSim.setScript(jobScript(seconds));
        const run = await old.runCaller('Delegate the steps.', before);
        if (run.code !== 0) throw new Error(`the caller of ${BEFORE_COMMIT} failed: ${run.stderr}`);
        rows.push(row(job, `before (${BEFORE_COMMIT}): start, then wait_job polls`, run));
      }
      now.jobSim.setScript(jobScript(seconds));
      const run = await now.runCaller('Delegate the steps.', after);
      if (run.code !== 0) throw new Error(`the caller failed: ${run.stderr}`);
      rows.push(row(job, 'after, print mode: run_agent returns when done', run));
      targets.push({ what: `${minutes}-min job: caller turns after`, measured: String(run.turns), target: '≤ 2', met: run.turns <= 2 });
      const pty = await interactiveDelegation(jobScript(seconds), (seconds + 120) * 1000);
      rows.push([job, 'after, interactive: a task at once, woken by the result', String(pty.turns), String(pty.polls), kib(pty.resentBytes), `${run.surfaceBytes} B`]);
      targets.push({ what: `${minutes}-min job, interactive: a background task at once, no polling turn`, measured: `${pty.taskAtOnce ? 'task at once' : 'no task'}, ${pty.polls} polls`, target: 'task at once, 0 polls', met: pty.taskAtOnce && pty.polls === 0 });
    }
  } finally {
    await now.close();
    await old?.close();
  }
  return {
    tables: [
      {
        title: 'one delegation, real Claude Code 2.1.332 as the caller, job paced by the simulator',
        columns: ['job', 'caller follows', 'caller turns', 'polling turns', 're-sent', 'tool surface / request'],
        rows,
      },
    ],
    targets,
    notes: [
      old === undefined
        ? `before rows left out: set BENCH_BEFORE_DIR to a checkout of ${BEFORE_COMMIT} after npm ci (git worktree add DIR ${BEFORE_COMMIT}; cd DIR; npm ci)`
        : `before runs the build in ${process.env.BENCH_BEFORE_DIR} (${BEFORE_COMMIT}) with its defaults: run_agent returns at once, wait_job waits 50 s a call`,
      'interactive: Claude Code in tmux starts plugin/start-mcp.mjs over stdio; turns count the delegation, the caller\'s acknowledgement and the turn the result wakes',
    ],
  };
}
