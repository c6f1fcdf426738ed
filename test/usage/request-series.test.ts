/**
 * Chart data from requests.jsonl: one point per generation request, cached vs
 * evaluated prompt tokens from the usage the shim logged, and no point for
 * the shim's count_tokens calls or a damaged line; open requests after them,
 * with what each is doing in the words job_status and the CLI use.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRequestSeries, withOpenRequests } from '../../src/usage/request-series.js';
import type { InFlightRequest } from '../../src/jobs/record/job-record.js';
import { countTokensEntry, requestEntry, sessionRequests } from '../dashboard/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'la-series-'));
const at = new Date('2026-11-29T10:00:00Z');

describe('readRequestSeries', () => {
  it('makes one point per /v1/messages request, numbered in order, with the usage split', async () => {
    const specs = sessionRequests(5, { missAt: 4 });
    const lines = specs.map((s, i) => JSON.stringify(requestEntry(new Date(at.getTime() + i * 1000), s, 1 + 2 * i)));
    lines.splice(2, 0, JSON.stringify(countTokensEntry(at)));
    const file = join(dir, 'normal.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);

    const series = await readRequestSeries(file);
    expect(series.points.map((p) => p.n)).toEqual([1, 2, 3, 4, 5]);
    expect(series.unreadable).toBe(0);
    expect(series.truncated).toBe(false);
    for (const [i, p] of series.points.entries()) {
      expect(p).toMatchObject({ cached: specs[i]?.cached, fresh: specs[i]?.fresh, output: specs[i]?.output, ttfb_ms: specs[i]?.ttfbMs, status: 200, error: null });
    }
    // The cache miss at request 4 is visible in the data: nothing reused, the whole prompt evaluated.
    expect(series.points[3]).toMatchObject({ cached: 0 });
    expect(series.points[3]!.fresh!).toBeGreaterThan(series.points[2]!.fresh! + series.points[2]!.cached!);
  });

  it('keeps a failed request as a point with its error and no token counts', async () => {
    const specs = sessionRequests(2, { failLast: true });
    const file = join(dir, 'failed.jsonl');
    writeFileSync(file, specs.map((s) => JSON.stringify(requestEntry(at, s, 3))).join('\n'));
    const series = await readRequestSeries(file);
    expect(series.points).toHaveLength(3);
    expect(series.points[2]).toMatchObject({ status: 400, cached: null, fresh: null, output: null, ttfb_ms: null });
    expect(series.points[2]?.error).toMatch(/^prompt is too long: \d+ tokens > 131072 maximum$/);
  });

  it('counts a cut or foreign line as unreadable instead of failing the whole chart', async () => {
    const good = JSON.stringify(requestEntry(at, sessionRequests(1)[0]!, 1));
    const file = join(dir, 'damaged.jsonl');
    writeFileSync(file, `${good}\n{"t":"2026-11-29T10:00:01Z","path":"/v1/mess\n{"hello":1}\n${good}\n`);
    const series = await readRequestSeries(file);
    expect(series.points.map((p) => p.n)).toEqual([1, 2]);
    expect(series.unreadable).toBe(2);
  });

  it('has no points for a job that has not sent a request yet', async () => {
    expect(await readRequestSeries(join(dir, 'missing.jsonl'))).toEqual({ points: [], unreadable: 0, truncated: false });
  });
});

describe('withOpenRequests', () => {
  const now = new Date('2026-11-29T10:01:00Z');
  const open = (r: Partial<InFlightRequest>): InFlightRequest => ({
    request: 3,
    started_at: '2026-11-29T10:00:46Z',
    phase: 'reading the prompt',
    output_tokens: 0,
    output_tokens_exact: false,
    silent_s: 14,
    flags: [],
    ...r,
  });

  it('puts a request reading its prompt after the finished ones, its bar at what the server has read so far', async () => {
    const file = join(dir, 'open.jsonl');
    writeFileSync(file, sessionRequests(2).map((spec, i) => JSON.stringify(requestEntry(at, spec, 1 + i))).join('\n'));
    const { points } = await readRequestSeries(file);
    const reading = open({ prompt_tokens_estimate: 60_000, prompt_read_tokens: 12_288, prompt_read_cached: 2_000, prompt_read_per_s: 900 });
    const all = withOpenRequests(points, [reading], now);
    expect(all).toHaveLength(3);
    expect(all[2]).toMatchObject({ n: 3, open: true, prompt_read: 12_288, cached: 2_000, fresh: null, total_ms: 14_000 });
    expect(all[2]?.line).toBe('request 3: reading the prompt for 14 s, 12k of ~60k prompt tokens read (2,000 cached) at ~900 tokens/s: about 53 s left, last byte 14 s ago');
  });

  it('once the request generates, its bar is the prompt the server counted and its line says how fast it writes', () => {
    const generating = open({ phase: 'generating', prompt_tokens: 61_000, cached_tokens: 2_000, output_tokens: 420, output_tokens_exact: false, tokens_per_s: 31, silent_s: 0.2 });
    const [point] = withOpenRequests([], [generating], now);
    expect(point).toMatchObject({ n: 1, open: true, cached: 2_000, fresh: 59_000, output: 420 });
    expect(point?.prompt_read).toBeUndefined();
    expect(point?.line).toBe('request 3: generating for 14 s, prompt 61k tokens (2,000 cached), output ~420 tokens at 31 tok/s, last byte just now');
  });
});
