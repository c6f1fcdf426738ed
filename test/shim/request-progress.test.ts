/**
 * Live progress of an open request, read by the shim from the bytes as they
 * pass, against the simulator: a request waiting for the only slot, reading
 * its prompt, generating with a growing token count; an error event inside a
 * 200 stream reaches the request log with the backend's own words; a model
 * repeating itself is noticed.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import type { RequestLogEntry } from '../../src/shim/request-log/request-log.js';
import type { RequestProgress, RequestProgressSnapshot } from '../../src/shim/progress/request-progress.js';
import { findRepetition } from '../../src/shim/progress/repetition.js';
import { createShimServer } from '../../src/shim/server.js';
import { until } from '../helpers/processes.js';
import { startSimulator, type Script, type SimFlavor } from '../sim/index.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';

const cleanups = cleanupsAfterEach();

const PEG = 'The model produced output that does not match the expected peg-native format';

async function route(flavor: SimFlavor, script: Script, slots = 1) {
  const sim = await startSimulator({ flavor, slots, script });
  cleanups.push(() => sim.close());
  const shim = createShimServer(silentLogger);
  cleanups.push(() => shim.close());
  const log: RequestLogEntry[] = [];
  const progress: RequestProgress[] = [];
  const open = await shim.open({
    jobId: 'j',
    endpoint: { name: 'gpu', base_url: sim.url, backend: flavor },
    servedModel: sim.modelId,
    context: undefined,
    log: { dumping: false, write: (e) => log.push(e), writeFull: () => undefined, close: () => Promise.resolve() },
    onRequestStart: (p) => progress.push(p),
  });
  const post = (text: string): Promise<string> =>
    fetch(`${open.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'x', max_tokens: 8000, stream: true, messages: [{ role: 'user', content: text }] }),
    }).then((r) => r.text());
  return { sim, log, progress, post };
}

/** Snapshots of one request, taken until `done` says so. */
async function watch(p: () => RequestProgress | undefined, done: (s: RequestProgressSnapshot) => boolean): Promise<RequestProgressSnapshot[]> {
  const seen: RequestProgressSnapshot[] = [];
  const reached = await until(() => {
    const s = p()?.snapshot();
    if (s === undefined) return false;
    seen.push(s);
    return done(s);
  }, 15_000, 20);
  expect(reached, `last snapshot: ${JSON.stringify(seen.at(-1))}`).toBe(true);
  return seen;
}

const words = (n: number): string => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

describe('live progress of an open request (llama.cpp simulator)', () => {
  it('shows waiting for a slot, reading the prompt, then generating with a growing output count and speed', async () => {
    const r = await route('llama.cpp', (req) =>
      req.lastUserText === 'first' ? { text: words(150), tokenDelayMs: 15 } : { text: words(200), delayMs: 600, tokenDelayMs: 10 },
    );
    const first = r.post('first');
    await watch(() => r.progress[0], (s) => s.phase === 'generating' && s.outputTokens > 10);
    const second = r.post('second');
    // The only slot is busy: llama.cpp sends nothing at all to the waiting request.
    const waiting = await watch(() => r.progress[1], () => true);
    expect(waiting[0]?.phase).toBe('waiting for a slot');
    expect(waiting[0]?.lastByteAt).toBeUndefined();
    expect(r.progress[1]?.snapshot().phase).toBe('waiting for a slot');
    await first;
    const reading = await watch(() => r.progress[1], (s) => s.phase !== 'waiting for a slot');
    expect(reading.at(-1)?.phase).toBe('reading the prompt');
    expect(reading.at(-1)?.promptTokens).toBeUndefined();
    const generating = await watch(() => r.progress[1], (s) => s.phase === 'generating' && s.outputTokens >= 60);
    const last = generating.at(-1)!;
    expect(last.promptTokens).toBeGreaterThan(0);
    expect(last.cachedTokens).toBeDefined();
    expect(last.outputExact).toBe(false);
    expect(last.tokensPerS).toBeGreaterThan(0);
    const counts = generating.filter((s) => s.phase === 'generating').map((s) => s.outputTokens);
    expect(new Set(counts).size).toBeGreaterThan(2); // it grew while we watched
    await second;
    const done = r.progress[1]!.snapshot();
    expect(done.ended).toBe(true);
    expect(done.outputExact).toBe(true); // the backend's own count replaced the estimate
    expect(done.outputTokens).toBe(r.sim.requests.filter((q) => q.path === '/v1/messages')[1]?.outputTokens);
    expect(r.log.map((e) => e.request)).toEqual([1, 2]);
  });

  it('an error event inside the 200 stream reaches the request log with the server\'s own words', async () => {
    const r = await route('llama.cpp', [{ text: words(40), streamError: { message: PEG } }]);
    await r.post('go');
    expect(r.log).toHaveLength(1);
    const entry = r.log[0]!;
    expect(entry.status).toBe(200);
    expect(entry.error_source).toBe('stream');
    expect(entry.error).toContain(PEG);
    expect(entry.original_error).toContain(`"message":"${PEG}"`);
    expect(r.progress[0]?.snapshot().outputTokens).toBeGreaterThanOrEqual(40);
  });

  it('notices a model repeating itself, and not ordinary varied text', async () => {
    const loop = 'I will now read the file to check the value. '.repeat(120);
    const r = await route('llama.cpp', (req) => (req.lastUserText === 'loop' ? { text: loop } : { text: words(600) }));
    await r.post('loop');
    await r.post('varied');
    expect(r.progress[0]?.snapshot().repeated).toBeDefined();
    expect(r.progress[1]?.snapshot().repeated).toBeUndefined();
  });

  it('vLLM: headers come at once, so before the first token the request counts as reading the prompt', async () => {
    const r = await route('vllm', [{ text: words(50), delayMs: 800 }]);
    const done = r.post('go');
    const seen = await watch(() => r.progress[0], (s) => s.lastByteAt !== undefined);
    expect(seen.at(-1)?.phase).toBe('reading the prompt');
    await done;
    expect(r.progress[0]?.snapshot().phase).toBe('generating');
  });
});

describe('findRepetition', () => {
  it('finds a loop of words, of characters without spaces, and nothing in varied text', () => {
    expect(findRepetition('the same sentence again and again. '.repeat(40))).toBeDefined();
    expect(findRepetition('abcdefg'.repeat(100))).toBeDefined();
    expect(findRepetition(words(400))).toBeUndefined();
    const prose = 'Localagents runs a headless Claude Code session against a local model. The shim forwards each request, rewrites what the backend cannot take, and logs timings. '.repeat(1);
    expect(findRepetition(prose + words(100))).toBeUndefined();
  });
});
