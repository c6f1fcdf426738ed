import { describe, expect, it, onTestFinished, vi } from 'vitest';
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

  it('is read once more after the sleep to the deadline, not again, when timers end early against the clock (a busy machine)', async () => {
    // The clock measures 90% of the time the timers wait, so every sleep ends "early": before, the loop slept the
    // remaining milliseconds again and read a fourth time.
    const real = performance.now.bind(performance);
    const base = real();
    const slow = vi.spyOn(performance, 'now').mockImplementation(() => base + (real() - base) * 0.9);
    onTestFinished(() => slow.mockRestore());
    let reads = 0;
    const get = (): Promise<JobRecord> => Promise.resolve({ id: 'j', status: 'running', n: ++reads } as unknown as JobRecord);
    const record = await watchRecord({ stateDir: '/nonexistent', log: createLogger('error', () => undefined), get }, 'j', 300);
    expect((record as unknown as { n: number }).n).toBe(reads);
    expect(reads).toBe(3);
  });
});
