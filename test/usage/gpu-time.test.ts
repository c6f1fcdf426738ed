/**
 * GPU time is logged in hundredths of a millisecond and shown in whole ones. Added up as floating-point numbers, a
 * total that lies exactly on a half rounds up or down by the order of the additions: `usage --by job` and the same
 * report from the cells once said 749 and 750 ms of the same jobs. Every order must give the exact sum, rounded once.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJobUsage, type JobUsage } from '../../src/usage/job-usage.js';
import { cellsOf } from '../../src/usage/month-cells.js';
import { createUsageTally, type Grouping } from '../../src/usage/tally.js';
import { makeRecord } from '../dashboard/fixtures.js';

// 7.01 + 18.56 + 17.93 is 43.50 exactly; as doubles, left to right it is 43.5, right to left 43.49999999999999.
const TIMES = [7.01, 18.56, 17.93];
const ROUNDED_TOTAL = 44;

function job(n: number, gpuMs: number): JobUsage {
  return {
    id: `20261205-03000${n}-aaaaaaaaaaaa`, status: 'succeeded', createdAt: '2026-12-05T03:00:00.000Z', model: 'qwen', endpoint: 'gpu', repo: '/r', turns: 1, requests: 1,
    tokens: { evaluated: 0, cacheWritten: 0, cached: 0, output: 0 }, gpuMs, promptTokensPerS: [], generationTokensPerS: [],
    caller: { calls: 0, cost: undefined, settled: false }, verify: undefined, outcome: 'unknown', unreadableLines: 0, halfWritten: false,
  };
}

const orders = [TIMES, [...TIMES].reverse()];

describe('GPU time adds up the same in any order', () => {
  it('one job: its requests in either order', async () => {
    for (const times of orders) {
      const dir = mkdtempSync(join(tmpdir(), 'la-gpu-'));
      const requests = join(dir, 'requests.jsonl');
      writeFileSync(requests, times.map((ms) => `${JSON.stringify({ t: '2026-12-05T03:00:00.000Z', path: '/v1/messages', method: 'POST', status: 200, total_ms: ms })}\n`).join(''));
      const usage = await readJobUsage(makeRecord(), { requests, caller: join(dir, 'caller.jsonl') });
      const tally = createUsageTally('month', {});
      tally.add(usage);
      expect(tally.total().gpuMs).toBe(ROUNDED_TOTAL);
    }
  });

  it('a time too large to count in hundredths is added as it is, not lost to Infinity', () => {
    const tally = createUsageTally('month', {});
    tally.add(job(0, 1e307));
    tally.add(job(1, 7.01));
    expect(tally.total().gpuMs).toBe(1e307);
  });

  it('many jobs, from their summaries and from cells, in three groupings', () => {
    for (const by of ['month', 'model', 'job'] satisfies Grouping[]) {
      for (const times of orders) {
        const tally = createUsageTally(by, {});
        times.forEach((ms, n) => tally.add(job(n, ms)));
        expect(tally.total().gpuMs, `--by ${by}, ${times.join(' + ')}`).toBe(ROUNDED_TOTAL);
      }
    }
    for (const times of orders) {
      const tally = createUsageTally('month', {});
      // One cell per job (each its own repo), so the cells are merged as well.
      for (const cell of cellsOf(times.map((ms, n) => ({ ...job(n, ms), repo: `/r${n}` })))) tally.addCell(cell);
      expect(tally.total().gpuMs, `cells, ${times.join(' + ')}`).toBe(ROUNDED_TOTAL);
    }
  });
});
