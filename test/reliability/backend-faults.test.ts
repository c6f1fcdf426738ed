/**
 * What a job does when its backend misbehaves mid-job: the real Claude Code
 * binary, the real shim, the simulator (llama.cpp, strict Qwen template).
 * Claude Code's retries are capped per endpoint (CLAUDE_CODE_MAX_RETRIES in the
 * endpoint's env) so each fault ends in seconds.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, type OnTestFinishedHandler } from 'vitest';
import type { Simulator, Turn } from '../sim/index.js';
import { ok, processAlive, readRecord, requestLines, serverOnSimulator, until, type InProcess } from './in-process.js';

/**
 * `outage_wait_s: 0`: these cases show what Claude Code's own retries do with a fault the shim hands on
 * at once; the default wait that holds requests through an outage is test/reliability/server-outage.test.ts.
 */
function setup(retries: number, finished: (handler: OnTestFinishedHandler) => void, opts: { noOutageWait?: boolean } = {}): Promise<{ sim: Simulator; h: InProcess }> {
  return serverOnSimulator({ flavor: 'llama.cpp', strictQwen: true }, finished, { retries, defaults: opts.noOutageWait === true ? '  outage_wait_s: 0' : undefined });
}

const messagesOf = (s: Simulator): Array<{ status: number | undefined; stream: boolean }> =>
  s.requests.filter((r) => r.path === '/v1/messages').map((r) => ({ status: r.status, stream: (r.json as { stream?: boolean } | undefined)?.stream === true }));

const transcriptOf = (h: InProcess, id: string): string => readFileSync(join(h.dirs.state, 'jobs', id, 'transcript.txt'), 'utf8');

const toolTurn: Turn = { toolUse: { name: 'Bash', input: { command: 'true', description: 'no-op' } } };

// At once: each test waits out Claude Code's backoff or a timeout on a simulator of its own.
describe.concurrent('backend faults during a job', () => {
  it('connection dropped mid-stream: Claude Code retries the stream, the job completes, requests.jsonl records the cut', async ({ onTestFinished }) => {
    const { sim, h } = await setup(3, onTestFinished);
    let cuts = 0;
    sim.setScript(() => (cuts++ === 0 ? { text: 'This answer is cut short by the backend.', cutAfterEvents: 3 } : { text: 'Answered after the retry.' }));
    const record = ok(await h.call('run_agent', { task: 'Say something.', wait_s: 60 }));
    expect(record).toMatchObject({ status: 'succeeded', result: 'Answered after the retry.' });

    const lines = requestLines(h.dirs, String(record.id));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ status: 200, stream: true, error: 'other side closed' });
    expect(lines[0]?.rewrites).toContain('stream cut by the backend');
    // The retry is an ordinary streaming request after Claude Code's backoff, not a non-streaming fallback.
    const sent = messagesOf(sim);
    expect(sent.map((r) => r.stream)).toEqual([true, true]);
    expect(transcriptOf(h, String(record.id))).toMatch(/backend error: HTTP none \(unknown\), retry 1\/3/);
  });

  it('503 Loading model mid-job (outage_wait_s: 0): the job waits through Claude Code\'s backoff and completes; the shim adds no retries of its own', async ({ onTestFinished }) => {
    const { sim, h } = await setup(6, onTestFinished, { noOutageWait: true });
    sim.setScript((req) => {
      // The server restarts into its loading phase right after this answer (checked before the next request's script).
      if (req.assistantTurns === 0) sim.setLoading(600_000);
      return req.assistantTurns === 0 ? toolTurn : { text: 'Finished once the model was loaded.' };
    });
    const pending = h.call('run_agent', { task: 'Run true, then say finished.', wait_s: 120 });
    // The load ends on an event, not a clock: once Claude Code has been refused three times (backoff ~0.6, 1.2, 2.4 s).
    const refused = (): number => messagesOf(sim).filter((r) => r.status === 503).length;
    expect(await until(() => refused() >= 3, 90_000)).toBe(true);
    sim.setLoading(0);
    const record = ok(await pending);
    expect(record).toMatchObject({ status: 'succeeded', result: 'Finished once the model was loaded.' });
    // The shim adds no retries of its own: one logged request per backend request.
    expect(requestLines(h.dirs, String(record.id))).toHaveLength(messagesOf(sim).length);
    const transcript = transcriptOf(h, String(record.id));
    expect(transcript).toMatch(/backend error on request \d+: the server answered HTTP 503: \{"error":\{"message":"Loading model"/);
    expect(transcript).toContain('The server is still loading its model');
  });

  it('backend killed and restarted on the same port mid-job (outage_wait_s: 0): the job completes', async ({ onTestFinished }) => {
    const { sim, h } = await setup(6, onTestFinished, { noOutageWait: true });
    sim.setScript((req) => (req.assistantTurns === 0 ? toolTurn : { text: 'Done after the restart.', delayMs: 500 }));
    const started = ok(await h.call('run_agent', { wait_s: 0, task: 'Run true, then say done.' }));
    const id = String(started.id);
    // Kill the server while it works on the second turn; bring it back once a request of the job has met it dead.
    expect(await until(() => messagesOf(sim).length >= 2, 30_000)).toBe(true);
    await sim.setDown(true);
    expect(await until(() => requestLines(h.dirs, id).some((l) => l.status === 503), 30_000)).toBe(true);
    await sim.setDown(false);
    const record = ok(await h.call('wait_job', { job_id: id, timeout_s: 60 }));
    expect(record).toMatchObject({ status: 'succeeded', result: 'Done after the restart.' });
    expect(transcriptOf(h, id)).toMatch(/backend error on request \d+: the server could not be reached: Cannot reach the model server 'gpu': host is up, nothing listens on 127\.0\.0\.1:\d+/);
  });

  it('backend killed and never restarted (outage_wait_s: 0): the job fails with a message naming the endpoint, within its retries', async ({ onTestFinished }) => {
    const { sim, h } = await setup(2, onTestFinished, { noOutageWait: true });
    sim.setScript((req) => (req.assistantTurns === 0 ? toolTurn : { text: 'never', delayMs: 60_000 }));
    const started = ok(await h.call('run_agent', { wait_s: 0, task: 'Run true, then say done.', timeout_s: 120 }));
    expect(await until(() => messagesOf(sim).length >= 2, 30_000)).toBe(true);
    await sim.setDown(true);
    const record = ok(await h.call('wait_job', { job_id: String(started.id), timeout_s: 60 }));
    expect(record.status).toBe('failed');
    // The cause in words first, then what Claude Code said.
    expect(String(record.error)).toMatch(/^The server could not be reached at all\. .* — API Error: 503 Cannot reach the model server 'gpu': host is up, nothing listens on 127\.0\.0\.1:\d+/);
  });

  it('backend accepts and never answers: the job ends as timeout at timeout_s, its Claude Code process gone, the slot released', async ({ onTestFinished }) => {
    const { sim, h } = await setup(3, onTestFinished);
    sim.setScript([{ hangBeforeHeaders: true }]);
    const record = ok(await h.call('run_agent', { task: 'Say hi.', timeout_s: 3, wait_s: 30 }));
    expect(record).toMatchObject({ status: 'timeout', error: 'stopped after timeout_s=3 s' });
    // Not before timeout_s, by the record's own clock (wait_s 30 bounds the other side: it answered done).
    expect(Date.parse(String(record.finished_at)) - Date.parse(String(record.started_at))).toBeGreaterThanOrEqual(3000);
    const pid = readRecord(h.dirs, String(record.id)).claude_pid;
    expect(pid).toBeTypeOf('number');
    expect(await until(() => !processAlive(pid!), 5000)).toBe(true);
    // The held request was abandoned upstream too: the slot is free for the next job.
    expect(await until(() => sim.stats.inFlight === 0, 5000)).toBe(true);
    expect(transcriptOf(h, String(record.id))).toContain('job timeout: stopped after timeout_s=3 s');
  });
});
