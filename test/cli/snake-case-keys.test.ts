/** --json keys: camelCase becomes snake_case at every depth; ids, paths and odd keys stay as they are. */
import { describe, expect, it } from 'vitest';
import { snakeCaseKeys } from '../../src/cli/output.js';

describe('snakeCaseKeys', () => {
  it('converts identifier-like keys at every depth, in arrays too, and keeps the values', () => {
    const rows = Array.from({ length: 3 }, (_, i) => ({ medianPromptTokensPerS: i, jobs: { succeededCount: 1 }, estimate: { savedUsd: 0.5 } }));
    expect(JSON.stringify(snakeCaseKeys({ byDay: rows, total: null, note: 'camelCase value stays' }))).toBe(
      JSON.stringify({ by_day: rows.map((_, i) => ({ median_prompt_tokens_per_s: i, jobs: { succeeded_count: 1 }, estimate: { saved_usd: 0.5 } })), total: null, note: 'camelCase value stays' }),
    );
  });

  it('leaves job ids, paths and model names as keys, and takes __proto__ as a key like any other', () => {
    const value = JSON.parse('{"20261202-090000-bbbbbbbbbbbb": 1, "/home/dev/repoName": 2, "qwen:32bQ4": 3, "__proto__": {"isAdmin": true}}') as unknown;
    const snake = snakeCaseKeys(value) as Record<string, unknown>;
    expect(Object.keys(snake)).toEqual(['20261202-090000-bbbbbbbbbbbb', '/home/dev/repoName', 'qwen:32bQ4', '__proto__']);
    expect(JSON.stringify(snake)).toBe('{"20261202-090000-bbbbbbbbbbbb":1,"/home/dev/repoName":2,"qwen:32bQ4":3,"__proto__":{"is_admin":true}}');
    expect(({} as Record<string, unknown>)['isAdmin']).toBeUndefined();
  });
});
