/**
 * A job's owner is a process, named by PID and start time: a record whose PID now
 * belongs to another program (the PID was reused after a reboot or a long time)
 * reads `interrupted`, never `running` for years.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { selfIdentity } from '../../src/coord/process-identity.js';
import { newJobId } from '../../src/jobs/record/job-id.js';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { createJobStore } from '../../src/jobs/record/job-store.js';

function running(id: string, owner: { pid: number; start?: string }): JobRecord {
  return {
    id, status: 'running', created_at: new Date().toISOString(), task_preview: 'x', model: {}, cwd: '/tmp', isolation: 'none', permission_mode: 'acceptEdits',
    max_turns: 1, timeout_s: 1, allowed_tools: [], disallowed_tools: [], num_turns: 0, tool_calls: 0, files_touched: [],
    usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0 }, requests: 0, warnings: [], owner_pid: owner.pid, owner_start: owner.start,
  };
}

describe('job owner by PID + start time', () => {
  it('reads a record whose owner PID is alive but started at another time as interrupted; its real owner keeps it running', async () => {
    const store = createJobStore(mkdtempSync(join(tmpdir(), 'la-owner-')));
    const reused = newJobId();
    await store.create(running(reused, { pid: process.pid, start: `${selfIdentity.start ?? ''}7` }), 'task');
    expect(await store.load(reused)).toMatchObject({ status: 'interrupted', error: expect.stringContaining(`pid ${process.pid}`) as unknown });
    const mine = newJobId(new Date(Date.now() + 1000));
    await store.create(running(mine, selfIdentity), 'task');
    expect((await store.load(mine)).status).toBe('running');
  });
});
