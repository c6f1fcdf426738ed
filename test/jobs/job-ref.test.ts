/** What a person may type for a job: full id, `last`, or a unique prefix of the id or of its random part. */
import { describe, expect, it } from 'vitest';
import { resolveJobRef } from '../../src/jobs/job-ref.js';

const IDS = ['20261129-111500-7gk2mq4xrz9d', '20261129-111501-7gzzzzzzzzzz', '20261130-090000-abcdefghjkmn'];

describe('resolveJobRef', () => {
  it('takes a full id, last, and unique prefixes of the id or of its random part', () => {
    expect(resolveJobRef('20261129-111500-7gk2mq4xrz9d', IDS)).toBe(IDS[0]);
    expect(resolveJobRef('last', IDS)).toBe(IDS[2]);
    expect(resolveJobRef('7gk', IDS)).toBe(IDS[0]);
    expect(resolveJobRef('abc', IDS)).toBe(IDS[2]);
    expect(resolveJobRef('20261130', IDS)).toBe(IDS[2]);
  });

  it('names the candidates when a prefix is ambiguous, and refuses what is no id', () => {
    expect(() => resolveJobRef('7g', IDS)).toThrow('"7g" matches 2 jobs (20261129-111500-7gk2mq4xrz9d, 20261129-111501-7gzzzzzzzzzz); type more of the id');
    expect(() => resolveJobRef('zz', IDS)).toThrow('no job id starts with "zz"');
    expect(() => resolveJobRef('last', [])).toThrow('there are no jobs on record yet');
    expect(() => resolveJobRef('../etc', IDS)).toThrow('is not a job id');
  });
});
