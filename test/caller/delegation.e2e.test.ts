/**
 * What a delegation costs the caller, with the real Claude Code as the caller (print mode) and its model scripted
 * to follow the tools' defaults: a job of about 150 s (paced by the job simulator: five turns of 30 s) costs two
 * caller turns (the call and its answer) and no wait_job or jobs call; two jobs started in one caller turn run at
 * the same time and the caller learns both without polling. The rig reports turns and bytes (test/caller/rig.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import type { Turn } from '../sim/index.js';
import { callerCalls, la, startCallerRig, toolResultTexts, type CallerRig } from './rig.js';

const STEP_MS = 30_000;
/** `steps` Bash turns of `stepMs` each, then the answer: five of 30 s make about 150 s of job. */
const slowJob = (answer: string, steps = 5, stepMs = STEP_MS): Turn[] => [
  ...Array.from({ length: steps }, (_, i): Turn => ({ toolUse: { name: 'Bash', input: { command: `echo step ${i + 1}`, description: `Step ${i + 1}` } }, delayMs: stepMs })),
  { text: answer },
];
/** The parallel cases need only jobs that are running at once, not long ones: two turns of 3 s. */
const PARALLEL_STEPS = [2, 3_000] as const;

/** The caller's last answer: every job's result as its tool results said it. */
function report(texts: readonly string[]): Turn {
  const results = texts.flatMap((t) => [...t.matchAll(/"result":"([^"]*)"/g)].map((m) => m[1]));
  return { text: `The local agents reported: ${results.join(' | ')}` };
}

const overlap = (a: JobRecord, b: JobRecord): boolean =>
  Date.parse(a.started_at!) < Date.parse(b.finished_at!) && Date.parse(b.started_at!) < Date.parse(a.finished_at!);

describe('a delegation costs the caller two turns, however long the job runs', { timeout: 900_000 }, () => {
  let rig: CallerRig;
  beforeAll(async () => {
    rig = await startCallerRig({ jobSlots: 2 });
  }, 60_000);
  afterAll(async () => rig?.close());

  it('print mode: a 150-s job, the call and its answer, no wait_job or jobs call; record and answer agree', async () => {
    rig.jobSim.setScript(slowJob('All five steps ran.'));
    const run = await rig.runCaller('Delegate the five steps.', (req) =>
      callerCalls(req) === 0 ? { text: 'Delegating.', toolUse: { name: la('run_agent'), input: { task: 'Run echo step 1 to 5, one per turn.' } } } : report(toolResultTexts(req)),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.turns).toBeLessThanOrEqual(2);
    expect(run.toolCalls.map((c) => c.name)).toEqual(['run_agent']);
    const [record] = rig.jobRecords();
    expect(record).toMatchObject({ status: 'succeeded', result: 'All five steps ran.', tool_calls: 5 });
    expect(Date.parse(record!.finished_at!) - Date.parse(record!.started_at!)).toBeGreaterThanOrEqual(5 * STEP_MS);
    expect(run.result).toBe(`The local agents reported: ${record!.result}`);
    // What the caller's model reads of our tools on every request, as Claude Code forwarded it.
    expect(run.surfaceBytes).toBeLessThanOrEqual(6000);
  });

  it('two jobs started in one caller turn run at the same time; one answer brings both, no polling', async () => {
    const before = rig.jobRecords().length;
    rig.jobSim.setScript(slowJob('This half is done.', ...PARALLEL_STEPS));
    const run = await rig.runCaller('Delegate both halves.', (req) =>
      callerCalls(req) === 0
        ? { text: 'Two halves, in parallel.', toolUse: { name: la('run_agent'), input: { task: ['Write the first half.', 'Write the second half.'], isolation: 'worktree' } } }
        : report(toolResultTexts(req)),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.turns).toBe(2);
    expect(run.toolCalls.map((c) => c.name)).toEqual(['run_agent']);
    const [a, b] = rig.jobRecords().slice(before);
    expect([a?.status, b?.status]).toEqual(['succeeded', 'succeeded']);
    expect(overlap(a!, b!)).toBe(true);
    expect(run.result).toBe('The local agents reported: This half is done. | This half is done.');
  });

  it('the other way, start without waiting then one wait_job for both, also runs them together but costs a third turn', async () => {
    const before = rig.jobRecords().length;
    rig.jobSim.setScript(slowJob('Done here.', ...PARALLEL_STEPS));
    const start = (task: string): { name: string; input: Record<string, unknown> } => ({ name: la('run_agent'), input: { task, wait_s: 0, isolation: 'worktree' } });
    const run = await rig.runCaller('Delegate both halves.', (req) => {
      const calls = callerCalls(req);
      if (calls === 0) return { text: 'Starting both.', toolUse: [start('First half.'), start('Second half.')] };
      if (calls === 2) {
        const ids = toolResultTexts(req).map((t) => /"id":"([^"]+)"/.exec(t)?.[1]);
        return { text: 'Waiting for both.', toolUse: { name: la('wait_job'), input: { job_id: ids } } };
      }
      return report(toolResultTexts(req).slice(-1));
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.turns).toBe(3);
    expect(run.toolCalls.map((c) => c.name)).toEqual(['run_agent', 'run_agent', 'wait_job']);
    const [a, b] = rig.jobRecords().slice(before);
    expect(overlap(a!, b!)).toBe(true);
    expect(run.result).toBe('The local agents reported: Done here. | Done here.');
  });
});
