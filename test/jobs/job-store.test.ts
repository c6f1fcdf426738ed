import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newJobId } from '../../src/jobs/record/job-id.js';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { createJobStore } from '../../src/jobs/record/job-store.js';
import { jobReport } from '../../src/cli/format-job.js';
import { jobSummary } from '../../src/mcp/job-view.js';

function record(id: string, status: JobRecord['status'], ownerPid = process.pid): JobRecord {
  return {
    id, status, created_at: new Date().toISOString(), task_preview: 'x', model: {}, cwd: '/tmp', isolation: 'none', permission_mode: 'acceptEdits',
    max_turns: 1, timeout_s: 1, allowed_tools: [], disallowed_tools: [], num_turns: 0, tool_calls: 0, files_touched: [],
    usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0 }, requests: 0, warnings: [], owner_pid: ownerPid,
  };
}

describe('job store', () => {
  it('lists oldest first, and only the newest N when asked', async () => {
    const store = createJobStore(mkdtempSync(join(tmpdir(), 'la-store-')));
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const id = newJobId(new Date(Date.UTC(2026, 10, 29, 11, 0, i)));
      ids.push(id);
      await store.create(record(id, 'succeeded'), `task ${i}`);
    }
    expect((await store.list()).records.map((r) => r.id)).toEqual(ids);
    expect((await store.list(3)).records.map((r) => r.id)).toEqual(ids.slice(-3));
  });

  it('keeps folders 0700 and files 0600', async () => {
    const state = mkdtempSync(join(tmpdir(), 'la-store-'));
    const store = createJobStore(state);
    const paths = await store.create(record(newJobId(), 'running'), 'task');
    expect(statSync(paths.dir).mode & 0o777).toBe(0o700);
    expect(statSync(paths.record).mode & 0o777).toBe(0o600);
    expect(statSync(paths.task).mode & 0o777).toBe(0o600);
  });

  it('reports a running record whose server is gone as interrupted, and a damaged record as damaged', async () => {
    const state = mkdtempSync(join(tmpdir(), 'la-store-'));
    const store = createJobStore(state);
    const dead = newJobId();
    // pid 2^22+1 is above Linux's pid_max default: no such process.
    await store.create({ ...record(dead, 'running', 4_194_305), session_id: 's-1' }, 'task');
    // What a server SIGKILLed mid-save leaves: a temp record named after it, swept once it is known dead.
    const litter = `${store.paths(dead).record}.4194305@123.0b1e8d5c-3f0a-4c39-9a55-6c8f1e2d7a90.tmp`;
    writeFileSync(litter, '{"id":');
    expect(await store.load(dead)).toMatchObject({ status: 'interrupted', error: expect.stringContaining('ended while it was running; it can be resumed') as unknown });
    expect(existsSync(litter)).toBe(false);
    const broken = newJobId(new Date(Date.now() + 1000));
    const paths = await store.create(record(broken, 'running'), 'task');
    writeFileSync(paths.record, '{"id": trunc');
    await expect(store.load(broken)).rejects.toThrow(`job record ${paths.record} is damaged`);
    // A damaged record does not hide the others, and is listed as damaged.
    const schemaBad = newJobId(new Date(Date.now() + 2000));
    const schemaPaths = await store.create(record(schemaBad, 'succeeded'), 'task');
    writeFileSync(schemaPaths.record, JSON.stringify({ ...record(schemaBad, 'succeeded'), status: 'exploded' }));
    const listing = await createJobStore(state).list(); // another process: nothing cached
    expect(listing.records.map((r) => r.id)).toEqual([dead]);
    expect(listing.damaged).toEqual([
      { id: broken, file: paths.record, problem: expect.stringMatching(/^(Unexpected token|Expected)/) as unknown },
      { id: schemaBad, file: schemaPaths.record, problem: expect.stringMatching(/^status: Invalid option/) as unknown },
    ]);
  });

  it('a job whose server died while it waited out an outage no longer says it waits, and keeps that outage', async () => {
    const store = createJobStore(mkdtempSync(join(tmpdir(), 'la-store-')));
    const id = newJobId();
    const since = new Date(Date.now() - 90_000).toISOString();
    const inFlight = [{ request: 3, started_at: since, phase: 'waiting for a slot' as const, output_tokens: 0, output_tokens_exact: false, silent_s: 90, flags: [] }];
    await store.create({ ...record(id, 'running', 4_194_305), session_id: 's-1', outage_wait: { endpoint: 'gpu', since, saw: 'is loading its model', wait_s: 600 }, in_flight: inFlight }, 'task');
    const loaded = await store.load(id);
    expect(loaded.status).toBe('interrupted');
    for (const text of [jobSummary(loaded), jobReport(loaded)]) {
      expect(text).not.toContain('waiting for the model server');
      expect(text).toContain('gpu');
    }
    expect(loaded.in_flight).toBeUndefined();
    expect(loaded.outages).toEqual([{ endpoint: 'gpu', started_at: since, ended_at: loaded.finished_at, saw: ['is loading its model'], outcome: 'job ended' }]);
  });

  it('a record whose folder could not be made (full disk at create) is saved, folder and all, once the disk takes it', async () => {
    const state = mkdtempSync(join(tmpdir(), 'la-store-'));
    const store = createJobStore(state);
    const id = newJobId();
    await store.save(record(id, 'succeeded'));
    expect((await store.load(id)).status).toBe('succeeded');
    expect(statSync(store.paths(id).dir).mode & 0o777).toBe(0o700);
  });
});
