import { describe, expect, it } from 'vitest';
import { requestJobValues } from '../../src/shim/request-job-values.js';
import type { RouteSpec } from '../../src/shim/routes.js';

const spec = { perJobValues: () => [{ name: '{job-temp}', value: '/tmp/localagents-job.48211@7290512.8d0c4f8e-35a1-4c55-9a3e-0f6a1b2c3d4e.d' }] } as unknown as RouteSpec;

describe('requestJobValues', () => {
  it("adds Claude Code's session id from its header to the job's own values", () => {
    expect(requestJobValues(spec, { 'x-claude-code-session-id': '490e9786-cc05-4f61-8b0d-54ee96937a33' })).toEqual([
      { name: '{job-temp}', value: '/tmp/localagents-job.48211@7290512.8d0c4f8e-35a1-4c55-9a3e-0f6a1b2c3d4e.d' },
      { name: '{session-id}', value: '490e9786-cc05-4f61-8b0d-54ee96937a33' },
    ]);
  });

  it('ignores a missing or non-UUID session header (it would rewrite unrelated text)', () => {
    expect(requestJobValues(spec, {})).toHaveLength(1);
    expect(requestJobValues(spec, { 'x-claude-code-session-id': 'a' })).toHaveLength(1);
  });
});
