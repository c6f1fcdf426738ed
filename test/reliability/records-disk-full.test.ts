/**
 * The state directory fills up (ENOSPC) or turns read-only (EROFS) while a job
 * runs: the job still succeeds, its record is written once the disk takes it
 * again (retried while the server runs, flushed at shutdown), and the next
 * server reads `succeeded` with the result — not `running`/`interrupted`.
 * The state directory is a real 2 MB tmpfs (the tests run as root): filled with
 * a file for ENOSPC, remounted read-only for EROFS.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { createLogger } from '../../src/log.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { baseEnv, endpointYaml, makeDirs, ok, startInProcess, until, type Dirs, type InProcess } from './in-process.js';

const RESULT = 'Finished while the disk was full.';

/** Mounts a tmpfs of `size` at `dir`; the error says plainly why the test cannot run without it. */
function mountTmpfs(dir: string, size: string): void {
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    throw new Error(`this test mounts a small tmpfs to get a real ENOSPC/EROFS and needs root: ${String(err)}`, { cause: err });
  }
}

/** Fills the file system: the filler grows until the kernel answers ENOSPC. */
function fill(dir: string): string {
  const filler = join(dir, 'filler');
  try {
    writeFileSync(filler, Buffer.alloc(8 * 1024 * 1024, 1));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
    return filler;
  }
  throw new Error('the tmpfs took 8 MB; it was meant to be 2 MB');
}

const remount = (dir: string, mode: 'ro' | 'rw'): void => {
  execFileSync('mount', ['-o', `remount,${mode}`, dir], { stdio: 'pipe' });
};

function recordOnDisk(state: string, id: string): JobRecord {
  return JSON.parse(readFileSync(join(state, 'jobs', id, 'job.json'), 'utf8')) as JobRecord;
}

function statusOnDisk(state: string, id: string): string | undefined {
  try {
    return recordOnDisk(state, id).status;
  } catch {
    return undefined; // not written yet
  }
}

/** Every name under the job folders: a temp file left by a failed write would show here. */
function litter(state: string): string[] {
  const jobs = join(state, 'jobs');
  return readdirSync(jobs).flatMap((id) => readdirSync(join(jobs, id)).filter((n) => n.endsWith('.tmp')));
}

/**
 * ENOSPC strikes mid-job, after the first record is on disk. EROFS holds from the start: a
 * remount read-only is refused while the job's logs are open for writing, so the job runs
 * with no folder at all, and the retry has to make the folder too.
 */
const faults = [
  { name: 'fills up (ENOSPC) while a job runs', midJob: true, break: (state: string) => { const filler = fill(state); return () => unlinkSync(filler); } },
  { name: 'is read-only (EROFS) when a job starts', midJob: false, break: (state: string) => { remount(state, 'ro'); return () => remount(state, 'rw'); } },
];

describe.each(faults)('state directory that $name', (fault) => {
  let sim: Simulator;
  let dirs: Dirs;
  let h: InProcess | undefined;

  beforeAll(async () => {
    // The delay keeps the job on its first request long enough to break the disk under it.
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, script: [{ text: RESULT, delayMs: 1500 }] });
  });
  afterAll(async () => {
    await sim?.close();
  });
  beforeEach(() => {
    dirs = makeDirs('la-diskfull-');
    mountTmpfs(dirs.state, '2m');
  });
  afterEach(async () => {
    await h?.close();
    h = undefined;
    execFileSync('umount', ['-l', dirs.state]);
  });

  /** Runs a job on the broken disk until it succeeds; the record on disk is not the final one. */
  async function jobOnBrokenDisk(): Promise<{ id: string; repair: () => void }> {
    const repairEarly = fault.midJob ? undefined : fault.break(dirs.state);
    h = await startInProcess({ yaml: endpointYaml(sim.url), dirs });
    const seen = sim.requests.length;
    const started = ok(await h.call('run_agent', { task: 'Say it.', wait_s: 0 }));
    const id = String(started.id);
    const file = join(dirs.state, 'jobs', id, 'job.json');
    let repair = repairEarly;
    if (repair === undefined) {
      expect(recordOnDisk(dirs.state, id).status).toBe('running');
      expect(await until(() => sim.requests.slice(seen).some((r) => r.path === '/v1/messages'), 60_000)).toBe(true);
      repair = fault.break(dirs.state);
    }
    const done = ok(await h.call('wait_job', { job_id: id, timeout_s: 100 }));
    expect(done).toMatchObject({ status: 'succeeded', result: RESULT });
    // The disk refused the final record: memory knows, the disk does not.
    if (fault.midJob) expect(recordOnDisk(dirs.state, id).status).toBe('running');
    else expect(() => readFileSync(file)).toThrow(/ENOENT/);
    expect(h.logLines.some((l) => l.includes(`could not write the job record ${file}`))).toBe(true);
    return { id, repair };
  }

  it('once the disk takes writes again, the running server writes the final record by itself', async () => {
    const { id, repair } = await jobOnBrokenDisk();
    repair();
    expect(await until(() => statusOnDisk(dirs.state, id) === 'succeeded', 15_000, 200)).toBe(true);
    expect(recordOnDisk(dirs.state, id)).toMatchObject({ status: 'succeeded', result: RESULT });
    expect(litter(dirs.state)).toEqual([]);
  });

  it('flushed at shutdown: the next server reports the job succeeded with its result, not interrupted', async () => {
    const { id, repair } = await jobOnBrokenDisk();
    repair();
    await h?.close(); // at once: no time for the periodic retry
    h = undefined;
    expect(recordOnDisk(dirs.state, id)).toMatchObject({ status: 'succeeded', result: RESULT });
    const next = createApp({
      configPath: dirs.config,
      cwd: dirs.repo,
      env: baseEnv(dirs),
      log: createLogger('error', () => undefined),
      stateDir: dirs.state,
    });
    try {
      expect(await next.jobs.get(id)).toMatchObject({ status: 'succeeded', result: RESULT });
    } finally {
      await next.close();
    }
    expect(litter(dirs.state)).toEqual([]);
  });
});
