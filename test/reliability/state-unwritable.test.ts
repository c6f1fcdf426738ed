/**
 * A state directory that cannot be written (full disk, read-only mount): jobs
 * still run, and the record and the log say the records could not be written
 * and where. Tests run as root, where chmod stops nothing, so the state path
 * is put under a regular file: every mkdir and write there fails (ENOTDIR),
 * the way ENOSPC or EROFS would, through the same code path.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../sim/index.js';
import { endpointYaml, makeDirs, ok, startInProcess, type InProcess } from './in-process.js';

describe('state directory that cannot be written', () => {
  let sim: Simulator;
  let h: InProcess;
  let stateDir: string;

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, script: [{ text: 'Done without a record.' }] });
    const dirs = makeDirs();
    writeFileSync(join(dirs.root, 'blocker'), 'a file where a directory should be\n');
    stateDir = join(dirs.root, 'blocker', 'state');
    h = await startInProcess({ yaml: endpointYaml(sim.url), dirs, stateDir });
  });
  afterAll(async () => {
    await h?.close();
    await sim?.close();
  });

  it('the job runs and succeeds; its record warns that nothing was written, and where', async () => {
    const record = ok(await h.call('run_agent', { task: 'Say done.', wait_s: 60 }));
    expect(record).toMatchObject({ status: 'succeeded', result: 'Done without a record.' });
    const jobDir = join(stateDir, 'jobs', String(record.id));
    const expected = `could not create ${jobDir}: ENOTDIR: not a directory, mkdir '${join(stateDir, 'jobs')}'; the job runs, but its record, transcript and logs are not on disk`;
    expect((record.warnings as string[]).some((w) => w.startsWith(expected))).toBe(true);
    expect(h.logLines.some((l) => l.includes(expected))).toBe(true);
  });

  it('the server keeps serving: another job runs, and finished jobs are still reported from memory', async () => {
    const again = ok(await h.call('run_agent', { task: 'Say done again.', wait_s: 60 }));
    expect(again.status).toBe('succeeded');
    expect(ok(await h.call('jobs', { job_id: again.id }))).toMatchObject({ status: 'succeeded', result: 'Done without a record.' });
    const listed = ok(await h.call('jobs', {})).jobs as Array<{ id: string; status: string }>;
    expect(listed.map((j) => j.status)).toEqual(['succeeded', 'succeeded']);
    expect(listed.map((j) => j.id)).toContain(again.id);
  });
});
