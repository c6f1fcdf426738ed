/** One set of facts, three readers: a job waiting out its server, as job_status, `localagents run` and the dashboard say it. */
import { describe, expect, it } from 'vitest';
import { statusLines } from '../../src/cli/follow/status-lines.js';
import { jobReport } from '../../src/cli/format-job.js';
import { jobListRow } from '../../src/jobs/view/job-facts.js';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { jobSummary } from '../../src/mcp/job-view.js';

const since = new Date(Date.now() - 100_000).toISOString();
const record: JobRecord = {
  id: '20261202-120000-abcdefghijkl', status: 'running', created_at: since, started_at: since, task_preview: 'x', model: { served: 'm', endpoint: 'gpu-box' }, cwd: '/tmp', isolation: 'none',
  permission_mode: 'acceptEdits', max_turns: 1, timeout_s: 1800, allowed_tools: [], disallowed_tools: [], num_turns: 1, tool_calls: 1, files_touched: [],
  usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0 }, requests: 1, warnings: [], owner_pid: 1,
  outage_wait: { endpoint: 'gpu-box', since, saw: 'is loading its model', wait_s: 600 },
  outages: [{ endpoint: 'gpu-box', started_at: '2026-12-02T11:00:00.000Z', ended_at: '2026-12-02T11:00:05.000Z', saw: ['is down (host is up, nothing listens on gpu-box:8080)'], outcome: 'served again' }],
};
const WORDS = /gpu-box is loading its model, 1 min 40 s so far; waiting up to 10 min/;

describe('a job waiting for its model server', () => {
  it('job_status (the calling Claude and job_log) says what it waits for, and lists the outages it waited through', () => {
    const text = jobSummary(record);
    expect(text).toMatch(new RegExp(`waiting for the model server: ${WORDS.source}`));
    expect(text).toContain('outage of gpu-box 11:00:00–11:00:05 (served again): it is down (host is up, nothing listens on gpu-box:8080)');
  });
  it('localagents show and the report run prints at the end say the same', () => {
    const text = jobReport(record);
    expect(text).toMatch(new RegExp(`waiting for the model server: ${WORDS.source}`));
    expect(text).toContain('outage of gpu-box 11:00:00–11:00:05 (served again): it is down (host is up, nothing listens on gpu-box:8080)');
  });
  it('localagents run\'s status area', () => {
    const lines = statusLines(record, undefined, new Date(), 0);
    expect(lines.some((l) => WORDS.test(l))).toBe(true);
  });
  it('the dashboard row (shown on the job page)', () => {
    expect(jobListRow(record).waiting_for_server).toMatch(WORDS);
    expect(jobListRow({ ...record, outage_wait: undefined }).waiting_for_server).toBeUndefined();
  });
});

describe('a job that moved to another endpoint serving its model (defaults.failover)', () => {
  const moved: JobRecord = {
    ...record,
    outage_wait: undefined,
    moves: [{ from: 'gpu-a', to: 'gpu-b', at: '2026-12-02T11:00:20.000Z', reason: "gpu-a had not served the job's model for 20 s (it is down (host is up, nothing listens on gpu-a:8080))", served: 'm', context: 131072 }],
    failover_blocked: 'gpu-c serves m with a 32768-token window, smaller than the 131072 tokens the session was told',
  };
  const MOVE = "moved from gpu-a to gpu-b at 11:00:20 after gpu-a had not served the job's model for 20 s (it is down (host is up, nothing listens on gpu-a:8080)); gpu-b serves m (131072-token window)";
  const BLOCKED = 'not moved to another endpoint: gpu-c serves m with a 32768-token window, smaller than the 131072 tokens the session was told';
  it('job_status and localagents show both say where it moved, when, why, and why a try found nowhere', () => {
    for (const text of [jobSummary(moved), jobReport(moved)]) {
      expect(text).toContain(MOVE);
      expect(text).toContain(BLOCKED);
    }
  });
});
