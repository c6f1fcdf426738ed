/**
 * Issue #11 class 7: Claude Code asks for `gzip, br, zstd`; a proxy in front of
 * the model server may compress whatever it is asked. The shim asks the backend
 * for identity and decodes what comes compressed anyway (gzip, deflate, br;
 * zstd where Node can), so usage is logged right, streams complete, and a
 * llama.cpp context overflow still reaches Claude Code as `prompt is too long`.
 * Driven with the real Claude Code binary and the simulator behind a
 * compressing proxy.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createProber } from '../../src/backends/probe.js';
import { silentLogger } from '../../src/log.js';
import { createRequestLog } from '../../src/shim/request-log/request-log.js';
import { createShimServer } from '../../src/shim/server.js';
import { claudeEnv, runClaudeP } from '../e2e/claude-cli.js';
import { makeRepo } from '../helpers/git-repo.js';
import { until } from '../helpers/processes.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../sim/index.js';
import { fixturePath } from '../sim/fixtures-dir.js';
import { startCompressingProxy, type Coding, type CompressingProxy } from './compressing-proxy.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';

const cleanups = cleanupsAfterEach();

interface Rig {
  sim: Simulator;
  proxy: CompressingProxy;
  home: string;
  repo: string;
  baseUrl: string;
  requestsLog: string;
}

async function rig(coding: Coding, options: SimulatorOptions): Promise<Rig> {
  const sim = await startSimulator(options);
  cleanups.push(() => sim.close());
  const proxy = await startCompressingProxy(sim.url, coding);
  cleanups.push(() => proxy.close());
  const home = mkdtempSync(join(tmpdir(), 'la-gz-'));
  const shim = createShimServer(silentLogger);
  cleanups.push(() => shim.close());
  const requestsLog = join(home, 'requests.jsonl');
  const log = createRequestLog(requestsLog, undefined, () => undefined);
  cleanups.push(() => log.close());
  const route = await shim.open({ jobId: 'gz', endpoint: { name: 'gpu', base_url: proxy.url, backend: options.flavor }, servedModel: sim.modelId, context: options.context, log });
  return { sim, proxy, home, repo: makeRepo(), baseUrl: route.baseUrl, requestsLog };
}

interface LogLine {
  status: number;
  path: string;
  usage?: { input_tokens?: number; output_tokens?: number };
  error?: string;
}

const logOf = (r: Rig): LogLine[] =>
  existsSync(r.requestsLog) ? readFileSync(r.requestsLog, 'utf8').split('\n').filter((l) => l.endsWith('}')).map((l) => JSON.parse(l) as LogLine) : [];

/** One of Claude Code's real requests, as it sent it (headers included). */
function capturedRequest(): { headers: Record<string, string>; body: Record<string, unknown> } {
  const raw = JSON.parse(readFileSync(fixturePath('claude-code', 'session-8-tool-turns', 'req-001.json'), 'utf8')) as { headers: Record<string, string>; body: Record<string, unknown> };
  const headers = Object.fromEntries(Object.entries(raw.headers).filter(([k]) => !['host', 'content-length', 'authorization', 'x-api-key', 'connection'].includes(k)));
  return { headers, body: raw.body };
}

describe('answers compressed by a proxy in front of the model server', () => {
  it('gzip: a Claude Code session completes, its usage is logged, and the backend was asked for identity', async () => {
    const r = await rig('gzip', { flavor: 'llama.cpp', strictQwen: true });
    r.sim.setScript([{ text: 'Hello through a gzip proxy.' }]);
    const run = await runClaudeP('Say hello.', r.repo, claudeEnv(r.baseUrl, r.home, join(r.home, 'c'), r.sim.modelId));
    expect(run.result).toMatchObject({ is_error: false, result: 'Hello through a gzip proxy.' });
    const messages = logOf(r).filter((e) => e.path === '/v1/messages');
    expect(messages.length).toBeGreaterThan(0);
    for (const e of messages) {
      expect(e).toMatchObject({ status: 200 });
      expect(e.error).toBeUndefined();
      expect(e.usage?.input_tokens).toBeGreaterThan(0);
      expect(e.usage?.output_tokens).toBeGreaterThan(0);
    }
    expect(r.proxy.compressed).toBeGreaterThan(0);
    expect(new Set(r.proxy.acceptEncodings)).toEqual(new Set(['identity']));
  });

  it('br: a llama.cpp context overflow reaches Claude Code as "prompt is too long"', async () => {
    // Claude Code's first request is ~12.5k tokens as the simulator counts: it cannot fit 8k.
    const r = await rig('br', { flavor: 'llama.cpp', strictQwen: true, context: 8192 });
    r.sim.setScript([{ text: 'never reached' }]);
    const run = await runClaudeP('Say hello.', r.repo, claudeEnv(r.baseUrl, r.home, join(r.home, 'c'), r.sim.modelId, { CLAUDE_CODE_MAX_RETRIES: '1' }));
    const overflow = logOf(r).find((e) => e.status === 400);
    expect(overflow?.error).toMatch(/^prompt is too long: \d+ tokens > 8191 maximum$/);
    expect(r.sim.requests.some((q) => q.status === 400)).toBe(true);
    expect(JSON.stringify(run.result)).toMatch(/prompt is too long/i);
  });

  for (const coding of ['deflate', 'br', 'gzip'] as const) {
    it(`${coding}: a streamed answer arrives whole and uncompressed, with Claude Code's own accept-encoding`, async () => {
      const r = await rig(coding, { flavor: 'llama.cpp' });
      r.sim.setScript([{ text: 'A streamed answer.' }]);
      const { headers, body } = capturedRequest();
      expect(headers['accept-encoding']).toContain('gzip');
      const res = await fetch(`${r.baseUrl}/v1/messages?beta=true`, { method: 'POST', headers, body: JSON.stringify({ ...body, stream: true }) });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-encoding')).toBeNull();
      const text = await res.text();
      expect(text).toContain('"text":"nswe"');
      expect(text).toContain('event: message_stop');
      // The line is written once the answer has gone out.
      expect(await until(() => logOf(r).length > 0, 10_000)).toBe(true);
      expect(logOf(r).at(-1)).toMatchObject({ status: 200, usage: { output_tokens: expect.any(Number) as number } });
      expect(logOf(r).at(-1)?.error).toBeUndefined();
    });
  }

  it('zstd: decoded where Node can, otherwise refused with an error that names the encoding', async () => {
    const r = await rig('zstd', { flavor: 'llama.cpp' });
    r.sim.setScript([{ text: 'A zstd answer.' }]);
    const { headers, body } = capturedRequest();
    const res = await fetch(`${r.baseUrl}/v1/messages?beta=true`, { method: 'POST', headers, body: JSON.stringify({ ...body, stream: false }) });
    const text = await res.text();
    if ('createZstdDecompress' in zlib) {
      expect(res.status).toBe(200);
      expect(text).toContain('A zstd answer.');
    } else {
      expect(res.status).toBe(502);
      expect(text).toContain('content-encoding \\"zstd\\" although localagents asked for identity');
      expect(text).toContain('Node 22.15 or later');
    }
  });

  it('the probes decode a compressed model list too', async () => {
    const sim = await startSimulator({ flavor: 'llama.cpp' });
    cleanups.push(() => sim.close());
    const proxy = await startCompressingProxy(sim.url, 'gzip');
    cleanups.push(() => proxy.close());
    const prober = createProber();
    cleanups.push(() => prober.close());
    const probe = await prober.probeEndpoint({ name: 'gpu', base_url: proxy.url, backend: 'llama.cpp' } as never, 5);
    expect(probe.state).toBe('up');
    expect(probe.models.map((m) => m.id)).toEqual([sim.modelId]);
    expect(probe.slots?.total).toBe(1);
  });
});
