import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { newQueuedRecord } from '../../src/jobs/queue/new-job.js';
import { createRecordSaver, SAVE_RETRY_MS } from '../../src/jobs/record/record-saver.js';
import { createLogger } from '../../src/log.js';

const settings = { cwd: '/tmp/x', isolation: 'none', permissionMode: 'acceptEdits', maxTurns: undefined, timeoutS: 60, allowedTools: [], disallowedTools: [], settingSources: [], agentWarnings: [] } as unknown as Parameters<typeof newQueuedRecord>[0]['settings'];
const record = (id: string, status: JobRecord['status'] = 'running'): JobRecord => ({
  ...newQueuedRecord({ id, task: 't', requestedModel: 'm', menuEntry: undefined, logDir: '/tmp/x', settings, resumedFrom: undefined, sessionId: undefined }),
  status,
});

/** A disk that refuses every write until `full` is false, keeping what it took. */
function disk(): { full: boolean; written: JobRecord[]; write: (r: JobRecord) => Promise<void> } {
  const d = {
    full: true,
    written: [] as JobRecord[],
    write: (r: JobRecord): Promise<void> => {
      if (d.full) return Promise.reject(new Error('ENOSPC: no space left on device'));
      d.written.push(r);
      return Promise.resolve();
    },
  };
  return d;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('record saver', () => {
  it('keeps a refused record, says so once, and writes its newest state once the disk takes writes again', async () => {
    vi.useFakeTimers();
    const d = disk();
    const lines: string[] = [];
    let latest = record('a', 'running');
    const saver = createRecordSaver({ write: d.write, log: createLogger('info', (l) => lines.push(l)), latest: () => latest });
    await saver.save(latest);
    await saver.save(latest);
    expect(saver.unsaved('a')?.status).toBe('running');
    expect(lines.filter((l) => l.includes('ENOSPC'))).toHaveLength(1);
    latest = record('a', 'succeeded');
    d.full = false;
    await vi.advanceTimersByTimeAsync(SAVE_RETRY_MS);
    expect(d.written.map((r) => r.status)).toEqual(['succeeded']);
    expect(saver.unsaved('a')).toBeUndefined();
  });

  it('at shutdown tries once more and names the records still refused', async () => {
    const d = disk();
    const lines: string[] = [];
    const saver = createRecordSaver({ write: d.write, log: createLogger('info', (l) => lines.push(l)), latest: () => undefined });
    await saver.save(record('b', 'failed'));
    await saver.flush();
    expect(lines.at(-1)).toMatch(/job b: its failed record could not be written before shutdown/);
    expect(saver.unsavedRecords().map((r) => r.id)).toEqual(['b']);
  });
});
