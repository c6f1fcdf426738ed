/** What a person may type for a job: full id, `last`, or a unique prefix of the id or of its random part. */
import { describe, expect, it } from 'vitest';
import { resolveJobRef } from '../../src/jobs/record/job-ref.js';
import { SortedJobIds } from '../../src/jobs/record/sorted-job-ids.js';

const IDS = SortedJobIds.of(['20261129-111500-7gk2mq4xrz9d', '20261129-111501-7gzzzzzzzzzz', '20261130-090000-abcdefghjkmn']);

describe('resolveJobRef', () => {
  it('takes a full id, last, and unique prefixes of the id or of its random part', () => {
    expect(resolveJobRef('20261129-111500-7gk2mq4xrz9d', IDS)).toBe(IDS.at(0));
    expect(resolveJobRef('last', IDS)).toBe(IDS.at(2));
    expect(resolveJobRef('7gk', IDS)).toBe(IDS.at(0));
    expect(resolveJobRef('abc', IDS)).toBe(IDS.at(2));
    expect(resolveJobRef('20261130', IDS)).toBe(IDS.at(2));
  });

  it('names the candidates when a prefix is ambiguous, and refuses what is no id', () => {
    expect(() => resolveJobRef('7g', IDS)).toThrow('"7g" matches 2 jobs (20261129-111500-7gk2mq4xrz9d, 20261129-111501-7gzzzzzzzzzz); type more of the id');
    expect(() => resolveJobRef('zz', IDS)).toThrow('no job id starts with "zz"');
    expect(() => resolveJobRef('last', SortedJobIds.of([]))).toThrow('there are no jobs on record yet');
    expect(() => resolveJobRef('../etc', IDS)).toThrow('is not a job id');
  });

  it('says which job a typo was probably meant to be, and nothing when none is close', () => {
    expect(() => resolveJobRef('7gk3', IDS)).toThrow('no job id starts with "7gk3"; did you mean 20261129-111500-7gk2mq4xrz9d?');
    expect(() => resolveJobRef('abdd', IDS)).toThrow('no job id starts with "abdd"; did you mean 20261130-090000-abcdefghjkmn?');
    expect(() => resolveJobRef('20261129-111500-7gk2mq4xrz9e', IDS)).toThrow('no job 20261129-111500-7gk2mq4xrz9e on record; did you mean 20261129-111500-7gk2mq4xrz9d?');
    expect(() => resolveJobRef('qqqq', IDS)).toThrow(/^no job id starts with "qqqq"$/);
    // A full id nowhere near one on record is left to the lookup (it may be a job not saved yet).
    expect(resolveJobRef('20250101-000000-qqqqqqqqqqqq', IDS)).toBe('20250101-000000-qqqqqqqqqqqq');
  });

  it('names the argument and carries the hint its caller gives', () => {
    expect(() => resolveJobRef('a/b', IDS, { argument: 'resume_job', hint: 'see the list' })).toThrow(
      expect.objectContaining({ code: 'bad_argument', argument: 'resume_job', hint: 'see the list', message: expect.stringMatching(/^resume_job "a\/b" is not a job id/) as unknown }),
    );
  });
});
