/**
 * Part 10: what one delegation costs the caller. The real Claude Code (print mode) is the caller, its model
 * scripted to follow the tools' defaults; the job simulator paces jobs of 1, 5 and 20 minutes (times
 * BENCH_SCALE; the quick mode, BENCH_SCALE under 0.5, leaves the 20-minute job out: it shows the part runs, and
 * the 20-minute row would hold CI for four minutes more). Before: main's defaults as of 9b6f45b, replayed on this server: run_agent answers at once,
 * then wait_job polls, each call waiting at most 50 s (main's default). After: run_agent answers when the job
 * has finished. Reported per delegation: caller turns, turns spent only polling, bytes the caller re-sent
 * (every turn after the first re-sends the conversation) and the tool-surface bytes on every request.
 */
import type { ParsedRequest, Turn } from '../../test/sim/index.js';
import { callerCalls, la, startCallerRig, toolResultTexts, type CallerRun } from '../../test/caller/rig.js';
import type { PartResult } from '../lib/report.js';

const MINUTES = [1, 5, 20];
const minutesAt = (scale: number): readonly number[] => (scale < 0.5 ? MINUTES.slice(0, 2) : MINUTES);
/** main's wait_job default, which its descriptions told the caller to use. */
const MAIN_POLL_S = 50;
/** main's 11 tools as Claude Code forwarded them, measured with the rig at 9b6f45b. */
const MAIN_SURFACE_BYTES = 14_204;
/** A job turn takes at most this long: the job moves (turns, tool calls) as a real one would. */
const TURN_S = 30;

function jobScript(seconds: number): Turn[] {
  const turns = Math.max(1, Math.ceil(seconds / TURN_S));
  const delayMs = Math.round((seconds * 1000) / turns);
  return [...Array.from({ length: turns }, (_, i): Turn => ({ toolUse: { name: 'Bash', input: { command: `echo ${i}`, description: 'Step' } }, delayMs })), { text: 'Finished.' }];
}

const answer: Turn = { text: 'The local agent finished.' };

function before(req: ParsedRequest): Turn {
  if (callerCalls(req) === 0) return { toolUse: { name: la('run_agent'), input: { task: 'Run the steps.', wait_s: 0 } } };
  const last = toolResultTexts(req).at(-1) ?? '';
  if (!/"status":"(running|queued)"/.test(last)) return answer;
  const id = /"id":"([^"]+)"/.exec(last)?.[1] ?? 'last';
  return { toolUse: { name: la('wait_job'), input: { job_id: id, timeout_s: MAIN_POLL_S } } };
}

const after = (req: ParsedRequest): Turn => (callerCalls(req) === 0 ? { toolUse: { name: la('run_agent'), input: { task: 'Run the steps.' } } } : answer);

function row(minutes: number, seconds: number, variant: string, run: CallerRun, surface: number): string[] {
  const polls = run.toolCalls.filter((c) => c.name === 'wait_job').length;
  return [`${minutes} min (${seconds} s)`, variant, String(run.turns), String(polls), `${(run.resentBytes / 1024).toFixed(0)} KiB`, `${surface} B`];
}

export async function measureCallerCost(scale: number): Promise<Omit<PartResult, 'part' | 'seconds'>> {
  const rig = await startCallerRig({ jobSlots: 1 });
  const rows: string[][] = [];
  const targets = [];
  try {
    for (const minutes of minutesAt(scale)) {
      const seconds = Math.max(5, Math.round(minutes * 60 * scale));
      rig.jobSim.setScript(jobScript(seconds));
      const old = await rig.runCaller('Delegate the steps.', before);
      rig.jobSim.setScript(jobScript(seconds));
      const now = await rig.runCaller('Delegate the steps.', after);
      if (old.code !== 0 || now.code !== 0) throw new Error(`the caller failed: ${old.stderr || now.stderr}`);
      rows.push(row(minutes, seconds, 'before: start, then wait_job polls', old, MAIN_SURFACE_BYTES), row(minutes, seconds, 'after: run_agent returns when done', now, now.surfaceBytes));
      targets.push({ what: `${minutes}-min job: caller turns after`, measured: String(now.turns), target: '≤ 2', met: now.turns <= 2 });
    }
  } finally {
    await rig.close();
  }
  return {
    tables: [
      {
        title: 'one delegation, real Claude Code 2.1.332 as the caller (print mode), job paced by the simulator',
        columns: ['job', 'caller follows', 'caller turns', 'polling turns', 're-sent', 'tool surface / request'],
        rows,
      },
    ],
    targets,
    notes: [`before replays main's defaults on this server (wait_job timeout_s ${MAIN_POLL_S}); its tool surface is main's, measured at 9b6f45b`],
  };
}
