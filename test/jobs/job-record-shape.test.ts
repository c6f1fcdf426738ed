// The job record's read-time shape (src/jobs/record/job-record-shape.ts, generated) against its zod schema: the
// committed file is what the schema generates, and both accept and refuse the same records.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { jobRecordShapeSource, SHAPE_FILE } from '../../scripts/gen-shapes.js';
import { finishedRecord } from '../../bench/parts/job-records.js';
import { jobRecordSchema } from '../../src/jobs/record/job-record-schema.js';
import { JOB_RECORD_SHAPE } from '../../src/jobs/record/job-record-shape.js';
import { checkShape } from '../../src/json-shape.js';

const zodProblem = (value: unknown): string | undefined => {
  const parsed = jobRecordSchema.safeParse(value);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  return `${issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue?.message}`;
};

describe('the job record shape', () => {
  it('is what npm run gen:shapes writes from the schema (run it after changing src/jobs/record/job-record-schema.ts)', () => {
    expect(readFileSync(SHAPE_FILE, 'utf8')).toBe(jobRecordShapeSource());
  });

  const good = {
    ...finishedRecord(3),
    error: 'boom',
    in_flight: [{ request: 2, started_at: 'x', phase: 'generating', output_tokens: 5, output_tokens_exact: false, silent_s: 0, flags: [{ kind: 'silent', message: 'm' }] }],
    worktree: { path: '/w', branch: 'b', base_commit: 'c', kept: true, diffstat: '', commits: 1, commands: { merge: 'git merge b' }, warnings: [] },
    sandbox: { enabled: true, strict: false, allow_write: [], allow_read: [], allowed_domains: ['x.org'], unsandboxed_commands: [] },
    // exit_code is nullable: the generated shape lists two types for it.
    verification: {
      command: 'npm test', passed: true, max_attempts: 3, timeout_s: 600, sandboxed: true,
      attempts: [{ started_at: 'a', exit_code: null, duration_ms: 5, output_tail: 'cut', timed_out: true }, { started_at: 'b', exit_code: 0, duration_ms: 5, output_tail: 'ok' }],
    },
    outages: [{ endpoint: 'gpu', started_at: 'a', ended_at: 'b', saw: ['is loading its model'], outcome: 'served again' }],
  };
  const cases: Array<[string, unknown]> = [
    ['a bad status', { ...good, status: 'done' }],
    ['a missing field', { ...good, cwd: undefined }],
    ['a string for a number', { ...good, num_turns: '3' }],
    ['null for an optional string', { ...good, session_id: null }],
    ['a bad nested enum', { ...good, in_flight: [{ ...good.in_flight[0], phase: 'thinking' }] }],
    ['a number in a string record', { ...good, worktree: { ...good.worktree, commands: { merge: 3 } } }],
    ['an array for an object', { ...good, model: [] }],
    ['a string for a nullable number', { ...good, verification: { ...good.verification, attempts: [{ ...good.verification.attempts[0], exit_code: '1' }] } }],
    ['a bad outage outcome', { ...good, outages: [{ ...good.outages[0], outcome: 'fine' }] }],
    ['not an object', 'job'],
  ];

  it('accepts a full record as zod does, and drops the keys the schema does not name, as zod does', () => {
    const withExtra = { ...good, someday: 1, model: { ...good.model, extra: true } };
    const checked = checkShape(withExtra, JOB_RECORD_SHAPE);
    expect(checked).toEqual({ ok: true, value: jobRecordSchema.parse(withExtra) });
  });

  it.each(cases)('refuses %s at the path zod names, in its words', (_, value) => {
    const checked = checkShape(value, JOB_RECORD_SHAPE);
    expect(checked.ok).toBe(false);
    const problem = checked.ok ? '' : checked.problem;
    const expected = zodProblem(value) ?? '';
    expect(problem.split(':')[0]).toBe(expected.split(':')[0]);
    expect(problem.split(':').slice(1).join(':').trim().split(':')[0]).toBe(expected.split(':').slice(1).join(':').trim().split(':')[0]);
  });
});
