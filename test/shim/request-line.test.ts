/**
 * The one reader of requests.jsonl, on lines the shim itself wrote: a shim
 * route to the simulator logs a streamed answer, a count_tokens call, an HTTP
 * error and an error inside a 200 stream, and the reader, the live CLI display,
 * the dashboard's chart and the usage report all read the same facts from them.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requestStats } from '../../src/jobs/tracking/request-stats.js';
import { parseRequestLines } from '../../src/usage/request-series.js';
import { silentLogger } from '../../src/log.js';
import { cacheReuse, readGenerations, readRequestLine } from '../../src/shim/request-log/request-line.js';
import { createRequestLog } from '../../src/shim/request-log/request-log.js';
import { createShimServer } from '../../src/shim/server.js';
import { readJobUsage } from '../../src/usage/job-usage.js';
import { makeRecord } from '../dashboard/fixtures.js';
import { startSimulator } from '../sim/index.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';

const cleanups = cleanupsAfterEach();

/** Four requests through a real shim route, logged by the real request log; returns the file's lines. */
async function shimWrittenLines(): Promise<{ file: string; lines: string[] }> {
  const sim = await startSimulator({
    flavor: 'llama.cpp',
    slots: 1,
    script: (req) =>
      req.lastUserText === 'fail'
        ? { error: { status: 500, body: { error: { code: 500, message: 'boom from the server', type: 'server_error' } } } }
        : req.lastUserText === 'cut'
          ? { text: 'partial answer that never ends', streamError: { message: 'backend stream broke', afterEvents: 3 } }
          : { text: 'hello there, this is a complete answer' },
  });
  cleanups.push(() => sim.close());
  const shim = createShimServer(silentLogger);
  cleanups.push(() => shim.close());
  const file = join(mkdtempSync(join(tmpdir(), 'la-reqline-')), 'requests.jsonl');
  const log = createRequestLog(file, undefined, () => undefined);
  const route = await shim.open({ jobId: 'j', endpoint: { name: 'gpu', base_url: sim.url, backend: 'llama.cpp' }, servedModel: sim.modelId, context: undefined, log });
  const post = (path: string, text: string, stream: boolean): Promise<string> =>
    fetch(`${route.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'x', max_tokens: 200, stream, messages: [{ role: 'user', content: text }] }),
    }).then((r) => r.text());
  await post('/v1/messages', 'hi', true);
  await post('/v1/messages/count_tokens', 'hi', false);
  await post('/v1/messages', 'fail', true);
  await post('/v1/messages', 'cut', true);
  route.close();
  await log.close();
  return { file, lines: readFileSync(file, 'utf8').split('\n').filter((l) => l !== '') };
}

describe('readRequestLine on lines the shim wrote', () => {
  it('reads a generation, another request, and errors from a status and from inside a 200 stream', async () => {
    const { lines } = await shimWrittenLines();
    expect(lines).toHaveLength(4);
    const [ok, count, failed, cut] = lines.map(readRequestLine);
    expect(count).toEqual({ kind: 'other' });
    expect(ok?.kind).toBe('generation');
    if (ok?.kind !== 'generation' || failed?.kind !== 'generation' || cut?.kind !== 'generation') throw new Error('expected generations');
    expect(ok.request).toMatchObject({ status: 200, messages: 1, hasUsage: true, error: undefined });
    expect(ok.request.evaluated + ok.request.cached).toBeGreaterThan(0);
    expect(ok.request.output).toBeGreaterThan(1);
    expect(ok.request.ttfbMs).toBeLessThanOrEqual(ok.request.totalMs);
    expect(failed.request.status).toBeGreaterThanOrEqual(500);
    expect(failed.request.hasUsage).toBe(false);
    expect(failed.request.error).toMatch(/boom from the server/);
    expect(cut.request.status).toBe(200);
    expect(cut.request.error).toMatch(/backend stream broke/);
  });

  it('is the reader behind the live display, the chart and the usage report: they agree on every request', async () => {
    const { file, lines } = await shimWrittenLines();
    const { requests, unreadable } = readGenerations([...lines, '{"t":"2026-12-02T10:00:00Z","path":"/v1/mess']);
    expect(unreadable).toBe(1);
    expect(requests).toHaveLength(3);

    const chart = parseRequestLines(lines.join('\n'));
    expect(chart.points.map((p) => [p.status, p.cached, p.fresh, p.output, p.error])).toEqual(
      requests.map((r) => [r.status, r.hasUsage ? r.cached : null, r.hasUsage ? r.evaluated : null, r.hasUsage ? r.output : null, r.error ?? null]),
    );

    const live = lines.map(requestStats).filter((s) => s !== undefined);
    const withUsage = requests.filter((r) => r.hasUsage);
    expect(live.map((s) => [s.inputTokens, s.cachedTokens, s.outputTokens, s.cacheReuse])).toEqual(withUsage.map((r) => [r.evaluated, r.cached, r.output, cacheReuse(r)]));

    const usage = await readJobUsage(makeRecord(), { requests: file, caller: join(file, '..', 'caller.jsonl') });
    expect(usage.requests).toBe(requests.length);
    expect(usage.tokens.evaluated).toBe(requests.reduce((n, r) => n + r.evaluated, 0));
    expect(usage.tokens.output).toBe(requests.reduce((n, r) => n + r.output, 0));
    expect(usage.unreadableLines).toBe(0);
  });
});
