import { describe, expect, it } from 'vitest';
import type { EndpointProbe } from '../../src/backends/types.js';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { runningRecord } from '../../src/jobs/queue/running-record.js';
import type { PreparedWorktree } from '../../src/jobs/git/worktree.js';
import type { Candidate } from '../../src/registry/resolve.js';

const queued = { id: 'j', status: 'queued', warnings: ['from the request'], queue: { position: 2, waiting_for: 'a slot' }, model: { requested: 'qwen', menu_entry: 'qwen' } } as unknown as JobRecord;
const candidate: Candidate = {
  endpoint: { name: 'gpu', base_url: 'http://gpu:1', backend: 'llama.cpp' },
  probe: {} as EndpointProbe,
  model: { id: 'Qwen3-8B', aliases: [], context: 65536, contextSource: 'llama.cpp /props n_ctx (per slot)', warnings: ['from the model'] },
  context: 65536,
  contextSource: 'llama.cpp /props n_ctx (per slot)',
  vision: false,
};

describe('runningRecord', () => {
  it('says where the job runs and why, leaves the queue, and gathers every warning', () => {
    const worktree = { path: '/w', workDir: '/w/sub', branch: 'local-agent/j', baseCommit: 'abc', repoRoot: '/r', warnings: ['from the worktree'] } as unknown as PreparedWorktree;
    const record = runningRecord(queued, { candidate, reason: 'the only endpoint' }, worktree, '/w/sub', '2026-12-02T08:00:00.000Z');
    expect(record).toMatchObject({
      status: 'running',
      started_at: '2026-12-02T08:00:00.000Z',
      queue: undefined,
      work_dir: '/w/sub',
      warnings: ['from the request', 'from the model', 'from the worktree'],
      model: { requested: 'qwen', menu_entry: 'qwen', served: 'Qwen3-8B', endpoint: 'gpu', context: 65536, context_source: 'llama.cpp /props n_ctx (per slot)', endpoint_reason: 'the only endpoint' },
    });
    expect(record.worktree).toBeDefined();
    expect(queued.status).toBe('queued'); // the queued record is not changed
  });
});
