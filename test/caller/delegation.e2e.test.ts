/**
 * What a delegation costs the caller, with the real Claude Code as the caller (print mode) and its model scripted
 * to follow the tools' defaults: a job of five paced turns (1 s each here; 30 s, 150 s in all, in
 * test/real/long-delegation.real.test.ts) costs two caller turns (the call and its answer) and no wait_job or jobs call; two jobs started in one caller turn run at
 * the same time and the caller learns both without polling. The rig reports turns and bytes (test/caller/rig.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { printModeDelegation, report, slowJob } from './print-mode-delegation.js';
import { callerCalls, la, startCallerRig, toolResultTexts, type CallerRig } from './rig.js';

/** The parallel cases need only jobs that are running at once, not long ones: two turns of 1 s. */
const PARALLEL_STEPS = [2, 1_000] as const;

const overlap = (a: JobRecord, b: JobRecord): boolean =>
  Date.parse(a.started_at!) < Date.parse(b.finished_at!) && Date.parse(b.started_at!) < Date.parse(a.finished_at!);

describe('a delegation costs the caller two turns, however long the job runs', { timeout: 900_000 }, () => {
  let rig: CallerRig;
  beforeAll(async () => {
    rig = await startCallerRig({ jobSlots: 2 });
  }, 60_000);
  afterAll(async () => rig?.close());

  it('print mode: a 5-s job, the call and its answer, no wait_job or jobs call; record and answer agree (150 s: test/real)', async () => {
    await printModeDelegation(rig, 1_000);
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
