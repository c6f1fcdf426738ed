/**
 * Prompt progress of a llama.cpp request, read from the server's /slots while
 * the prompt is read, against the simulator (whose /slots counts a prompt a
 * batch at a time, as llama-server does): the count grows while our request is
 * the only one on the server; nothing is said when another client's request
 * holds a slot (which slot is ours cannot be told) or when /slots is off, and
 * an off /slots is not asked again for every request.
 */
import { describe, expect, it, type OnTestFinishedHandler } from 'vitest';
import { silentLogger } from '../../src/log.js';
import type { RequestProgress, RequestProgressSnapshot } from '../../src/shim/progress/request-progress.js';
import { createShimServer } from '../../src/shim/server.js';
import { until } from '../helpers/processes.js';
import { startSimulator, type SimulatorOptions } from '../sim/index.js';

/** About 10,000 prompt tokens as the simulator counts them (four characters a token). */
const LONG_PROMPT = 'lorem ipsum '.repeat(3400);

/** `finished`: the test's own onTestFinished, so tests that run at once each close only what they started. */
async function route(options: Partial<SimulatorOptions>, finished: (handler: OnTestFinishedHandler) => void) {
  const sim = await startSimulator({ flavor: 'llama.cpp', script: () => ({ text: 'Done.' }), prefillMsPerToken: 0.5, ...options });
  finished(() => sim.close());
  const shim = createShimServer(silentLogger);
  finished(() => shim.close());
  const progress: RequestProgress[] = [];
  const open = await shim.open({
    jobId: 'j',
    endpoint: { name: 'gpu', base_url: sim.url, backend: 'llama.cpp' },
    servedModel: sim.modelId,
    context: undefined,
    log: { dumping: false, write: () => undefined, writeFull: () => undefined, close: () => Promise.resolve() },
    onRequestStart: (p) => progress.push(p),
  });
  const body = JSON.stringify({ model: 'x', max_tokens: 100, stream: true, messages: [{ role: 'user', content: LONG_PROMPT }] });
  const post = (): Promise<string> => fetch(`${open.baseUrl}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.text());
  return { sim, progress, post };
}

/** Every snapshot of the first request until it generates. */
async function untilGenerating(progress: RequestProgress[]): Promise<RequestProgressSnapshot[]> {
  const seen: RequestProgressSnapshot[] = [];
  const reached = await until(() => {
    const s = progress[0]?.snapshot();
    if (s !== undefined) seen.push(s);
    return s?.phase === 'generating';
  }, 30_000, 50);
  expect(reached).toBe(true);
  return seen;
}

const slotsReads = (sim: { requests: ReadonlyArray<{ method: string; path: string }> }): number => sim.requests.filter((r) => r.method === 'GET' && r.path === '/slots').length;

// At once: each test waits seconds for a simulated prompt read and uses little CPU meanwhile.
describe.concurrent('prompt progress from llama.cpp /slots', () => {
  it('counts the prompt as the server reads it, then gives way to the real numbers', async ({ onTestFinished }) => {
    const { sim, progress, post } = await route({}, onTestFinished);
    const answer = post();
    const seen = await untilGenerating(progress);
    await answer;
    const reads = [...new Set(seen.map((s) => s.promptRead?.tokens).filter((n): n is number => n !== undefined))];
    expect(reads.length, `prompt read counts seen: ${reads.join(', ')}`).toBeGreaterThanOrEqual(2);
    expect(reads).toEqual([...reads].sort((a, b) => a - b));
    const promptTokens = sim.requests.find((r) => r.path === '/v1/messages')?.promptTokens ?? 0;
    expect(reads.at(-1)).toBeLessThan(promptTokens);
    expect(seen.some((s) => s.phase === 'reading the prompt' && (s.promptRead?.perS ?? 0) > 0)).toBe(true);
    // Generating: message_start's numbers, not a stale reading.
    const last = seen.at(-1);
    expect(last?.promptRead).toBeUndefined();
    expect(last?.promptTokens).toBe(promptTokens);
  }, 60_000);

  it('says nothing while another client\'s request holds a slot: which slot is ours cannot be told', async ({ onTestFinished }) => {
    const { sim, progress, post } = await route({ slots: 2 }, onTestFinished);
    // Another client, straight to the server, reading a long prompt of its own the whole time.
    sim.setScript((req) => (req.lastUserText === 'other client' ? { text: 'x', delayMs: 20_000 } : { text: 'Done.' }));
    const other = new AbortController();
    // Its body is read to the end: a response nobody holds is collected, and undici then closes the connection
    // (the server drops the request and the other slot goes idle at the whim of the garbage collector).
    const otherAnswer = fetch(`${sim.url}/v1/messages`, {
      method: 'POST',
      signal: other.signal,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'x', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'other client' }] }),
    })
      .then((r) => r.text())
      .catch(() => undefined);
    await until(() => sim.stats.inFlight === 1, 5000, 20);
    const answer = post();
    const seen = await untilGenerating(progress);
    other.abort();
    await Promise.all([answer, otherAnswer]);
    expect(seen.filter((s) => s.phase === 'reading the prompt').length).toBeGreaterThan(20);
    expect(slotsReads(sim)).toBeGreaterThanOrEqual(2); // it did look
    expect(seen.map((s) => s.promptRead).filter((r) => r !== undefined)).toEqual([]);
  }, 60_000);

  it('with /slots off says nothing, and does not ask again for the next request', async ({ onTestFinished }) => {
    const { sim, progress, post } = await route({ slotsEndpoint: false }, onTestFinished);
    const first = post();
    const seen = await untilGenerating(progress);
    await first;
    await post();
    expect(seen.map((s) => s.promptRead).filter((r) => r !== undefined)).toEqual([]);
    expect(progress).toHaveLength(2);
    expect(slotsReads(sim)).toBe(1);
  }, 60_000);
});
