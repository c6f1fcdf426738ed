/**
 * Print mode's delegation, at any pace: the real Claude Code caller runs run_agent with its defaults while the
 * job simulator paces five Bash turns of `stepMs`; the call and its answer are the caller's only two turns, and
 * the job's record and the caller's final answer agree. npm test runs it at 1 s a turn; the real suite at 30 s
 * (a 150-s job, issue 37's figure), which holds a worker for three minutes.
 */
import { expect } from 'vitest';
import type { Turn } from '../sim/index.js';
import { callerCalls, la, toolResultTexts, type CallerRig } from './rig.js';

/** `steps` Bash turns of `stepMs` each, then the answer. */
export const slowJob = (answer: string, steps: number, stepMs: number): Turn[] => [
  ...Array.from({ length: steps }, (_, i): Turn => ({ toolUse: { name: 'Bash', input: { command: `echo step ${i + 1}`, description: `Step ${i + 1}` } }, delayMs: stepMs })),
  { text: answer },
];

/** The caller's last answer: every job's result as its tool results said it. */
export function report(texts: readonly string[]): Turn {
  const results = texts.flatMap((t) => [...t.matchAll(/"result":"([^"]*)"/g)].map((m) => m[1]));
  return { text: `The local agents reported: ${results.join(' | ')}` };
}

export async function printModeDelegation(rig: CallerRig, stepMs: number): Promise<void> {
  rig.jobSim.setScript(slowJob('All five steps ran.', 5, stepMs));
  const run = await rig.runCaller('Delegate the five steps.', (req) =>
    callerCalls(req) === 0 ? { text: 'Delegating.', toolUse: { name: la('run_agent'), input: { task: 'Run echo step 1 to 5, one per turn.' } } } : report(toolResultTexts(req)),
  );
  expect(run.code, run.stderr).toBe(0);
  expect(run.turns).toBeLessThanOrEqual(2);
  expect(run.toolCalls.map((c) => c.name)).toEqual(['run_agent']);
  const [record] = rig.jobRecords().slice(-1);
  expect(record).toMatchObject({ status: 'succeeded', result: 'All five steps ran.', tool_calls: 5 });
  expect(Date.parse(record!.finished_at!) - Date.parse(record!.started_at!)).toBeGreaterThanOrEqual(5 * stepMs);
  expect(run.result).toBe(`The local agents reported: ${record!.result}`);
  // What the caller's model reads of our tools on every request, as Claude Code forwarded it.
  expect(run.surfaceBytes).toBeLessThanOrEqual(6000);
}
