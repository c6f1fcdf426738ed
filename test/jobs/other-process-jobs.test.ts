import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { watchRecord } from '../../src/jobs/queue/other-process-jobs.js';
import { createLogger } from '../../src/log.js';

describe("another process's job", () => {
  it('is re-read until it has finished', async () => {
    const statuses: JobRecord['status'][] = ['running', 'running', 'succeeded'];
    let reads = 0;
    const get = (): Promise<JobRecord> => Promise.resolve({ id: 'j', status: statuses[Math.min(reads++, 2)] } as JobRecord);
    const record = await watchRecord({ stateDir: '/nonexistent', log: createLogger('error', () => undefined), get }, 'j', 10_000);
    expect(record.status).toBe('succeeded');
    expect(reads).toBe(3);
  });

  it('is returned as it stands when the deadline passes first', async () => {
    let reads = 0;
    const get = (): Promise<JobRecord> => Promise.resolve({ id: 'j', status: 'running', n: ++reads } as unknown as JobRecord);
    const record = await watchRecord({ stateDir: '/nonexistent', log: createLogger('error', () => undefined), get }, 'j', 300);
    expect(record.status).toBe('running');
    // Polled every 200 ms up to the deadline, not past it: the record of the last read, at most 3 reads (however slow the machine).
    expect((record as unknown as { n: number }).n).toBe(reads);
    expect(reads).toBeLessThanOrEqual(3);
  });
});
