/** The outage wait of one route (src/shim/outage-hold.ts): what a probe means, the words, and the wait's end. */
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import type { EndpointProbe, ServedModel } from '../../src/backends/types.js';
import { formatDuration } from '../../src/amounts.js';
import { createRouteOutage, lookFromProbe, outageWords, type MoveAttempt, type OutageLive, type OutageReport, type ServerLook } from '../../src/shim/outage-hold.js';
import { sameModelRule } from '../../src/jobs/placement/same-model.js';
import { until } from '../helpers/processes.js';

const JOB_MODEL = 'unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL';

const JOB = { id: JOB_MODEL };

function probe(state: EndpointProbe['state'], ids: Array<string | Partial<ServedModel> & { id: string }> = [], reason = 'fine'): EndpointProbe {
  return {
    endpoint: 'gpu', baseUrl: 'http://127.0.0.1:1', backend: 'llama.cpp', host: undefined, notes: undefined, state, hostState: 'up', reason,
    models: ids.map((m) => ({ aliases: [], context: 32768, contextSource: 'unknown', warnings: [], ...(typeof m === 'string' ? { id: m } : m) })),
    slots: undefined, metrics: { enabled: false }, server: {}, warnings: [], elapsedMs: 1,
  };
}

describe('what a probe means for a waiting job', () => {
  const exact = sameModelRule(JOB_MODEL, undefined);
  it('up with the job\'s model: serving', () => {
    expect(lookFromProbe(probe('up', [JOB_MODEL]), JOB, exact)).toEqual({ serving: true, saw: `serves ${JOB_MODEL}`, servedId: JOB_MODEL });
  });
  it('loading, down: not serving, in words', () => {
    expect(lookFromProbe(probe('loading'), JOB, exact)).toEqual({ serving: false, saw: 'is loading its model' });
    expect(lookFromProbe(probe('down', [], 'host is up, nothing listens on 127.0.0.1:1'), JOB, exact).saw).toBe('is down (host is up, nothing listens on 127.0.0.1:1)');
  });
  it('another model on the port: not serving, naming both', () => {
    expect(lookFromProbe(probe('up', ['other-8b']), JOB, exact)).toEqual({ serving: false, saw: `serves other-8b now, not the job's model ${JOB_MODEL}` });
  });
  it('a menu entry whose served_name is a glob: another quantisation it matches is the same model; one it does not match is not', () => {
    const glob = sameModelRule(JOB_MODEL, 'unsloth/Qwen3.8-27B-GGUF:*');
    expect(lookFromProbe(probe('up', ['unsloth/Qwen3.8-27B-GGUF:Q8_0']), JOB, glob)).toMatchObject({ serving: true, servedId: 'unsloth/Qwen3.8-27B-GGUF:Q8_0' });
    expect(lookFromProbe(probe('up', ['unsloth/Qwen3.8-9B-GGUF:Q8_0']), JOB, glob).serving).toBe(false);
    // Without a glob only the id the job started on counts, even when the menu entry names it exactly.
    expect(lookFromProbe(probe('up', ['unsloth/Qwen3.8-27B-GGUF:Q8_0']), JOB, sameModelRule(JOB_MODEL, JOB_MODEL)).serving).toBe(false);
  });
  const started = { id: JOB_MODEL, file: '/models/qwen-27b-q4.gguf', fingerprint: '26900000000 parameters, 17100000000 bytes' };
  it('the job\'s id on another file (llama-server restarted with another GGUF and the same --alias): not serving, naming both files', () => {
    expect(lookFromProbe(probe('up', [{ id: JOB_MODEL, file: '/models/other-8b.gguf', fingerprint: started.fingerprint }]), started, exact)).toEqual({
      serving: false,
      saw: `serves ${JOB_MODEL} from /models/other-8b.gguf now, not the job's model ${JOB_MODEL} from /models/qwen-27b-q4.gguf`,
    });
    // Under one of its aliases too.
    expect(lookFromProbe(probe('up', [{ id: 'qwen', aliases: [JOB_MODEL], file: '/models/other-8b.gguf' }]), started, sameModelRule(JOB_MODEL, 'qwen*')).serving).toBe(false);
  });
  it('the same path holding other weights (a symlink moved, a file overwritten): not serving, naming both fingerprints', () => {
    expect(lookFromProbe(probe('up', [{ id: JOB_MODEL, file: started.file, fingerprint: '8000000000 parameters, 5000000000 bytes' }]), started, exact).saw).toBe(
      `serves ${JOB_MODEL} with other weights now (8000000000 parameters, 5000000000 bytes), not the job's model ${JOB_MODEL} (26900000000 parameters, 17100000000 bytes)`,
    );
  });
  it('the same weights, or a server that does not say (on either side): the id decides', () => {
    expect(lookFromProbe(probe('up', [started]), started, exact).serving).toBe(true);
    expect(lookFromProbe(probe('up', [JOB_MODEL]), started, exact).serving).toBe(true);
    expect(lookFromProbe(probe('up', [{ id: JOB_MODEL, file: '/models/other-8b.gguf', fingerprint: 'x' }]), JOB, exact).serving).toBe(true);
  });
  it('another id the glob accepts runs on its own file by design: the menu entry decides', () => {
    const glob = sameModelRule(JOB_MODEL, 'unsloth/Qwen3.8-27B-GGUF:*');
    expect(lookFromProbe(probe('up', [{ id: 'unsloth/Qwen3.8-27B-GGUF:Q8_0', file: '/models/qwen-27b-q8.gguf' }]), started, glob)).toMatchObject({ serving: true, servedId: 'unsloth/Qwen3.8-27B-GGUF:Q8_0' });
  });
});

describe('the words', () => {
  it('durations in the words of a job\'s own time: one formatter, "1 min 5 s", never "1 min 05 s"', () => {
    const live: OutageLive = { endpoint: 'gpu-box', since: '2026-12-02T12:00:00.000Z', saw: 'is down', wait_s: 45 };
    const at = new Date('2026-12-02T12:01:05.000Z');
    expect(outageWords(live, at)).toBe(`gpu-box is down, ${formatDuration(65)} so far; waiting up to ${formatDuration(45)}`);
    expect(outageWords(live, at)).toBe('gpu-box is down, 1 min 5 s so far; waiting up to 45 s');
  });
  it('the live line', () => {
    const live: OutageLive = { endpoint: 'gpu-box', since: '2026-12-02T12:00:00.000Z', saw: 'is loading its model', wait_s: 600 };
    expect(outageWords(live, new Date('2026-12-02T12:01:40.000Z'))).toBe('gpu-box is loading its model, 1 min 40 s so far; waiting up to 10 min');
  });
});

describe('one route\'s wait', () => {
  function scripted(looks: ServerLook[]): { look: () => Promise<ServerLook>; calls: () => number } {
    let n = 0;
    return { look: () => Promise.resolve(looks[Math.min(n++, looks.length - 1)]!), calls: () => n };
  }

  it('every request joins one wait; it ends when the server serves the job\'s model, and the report lists what was seen in order', async () => {
    const lives: Array<OutageLive | undefined> = [];
    const reports: OutageReport[] = [];
    const looks = scripted([{ serving: false, saw: 'is loading its model' }, { serving: false, saw: 'is loading its model' }, { serving: true, saw: 'serves m', servedId: 'm' }]);
    const outage = createRouteOutage('gpu', 60, looks.look, { onLive: (l) => lives.push(l), onEnd: (r) => reports.push(r) });
    const signal = new AbortController().signal;
    const [a, b] = await Promise.all([outage.wait('is down (refused)', signal), outage.wait(undefined, signal)]);
    expect(a).toEqual({ kind: 'serving', servedId: 'm' });
    expect(b).toEqual(a);
    expect(looks.calls()).toBe(3); // one probe loop for both requests
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ endpoint: 'gpu', outcome: 'served again', saw: ['is down (refused)', 'is loading its model'] });
    expect(lives.map((l) => l?.saw)).toEqual(['is down (refused)', 'is loading its model', undefined]);
    expect(outage.active).toBe(false);
  });

  it('past the deadline: expired, with the words; every later request gets them at once, without another probe', async () => {
    const looks = scripted([{ serving: false, saw: 'is down (refused)' }]);
    const reports: OutageReport[] = [];
    const outage = createRouteOutage('gpu', 0.3, looks.look, { onLive: () => undefined, onEnd: (r) => reports.push(r) });
    const signal = new AbortController().signal;
    const first = await outage.wait('is down (refused)', signal);
    expect(first.kind).toBe('expired');
    expect(first.kind === 'expired' && first.message).toMatch(/^The model server 'gpu' did not serve the job's model again within defaults\.outage_wait_s=0\.3 s \(localagents held the job's requests since .+\); it is down \(refused\)$/);
    const calls = looks.calls();
    expect(await outage.wait(undefined, signal)).toEqual(first);
    expect(looks.calls()).toBe(calls);
    expect(reports.map((r) => r.outcome)).toEqual(['deadline passed']);
  });

  it('a request whose client left stops waiting; closing the route stops the probes and reports the job ended', async () => {
    const looks = scripted([{ serving: false, saw: 'is down (refused)' }]);
    const reports: OutageReport[] = [];
    const outage = createRouteOutage('gpu', 60, looks.look, { onLive: () => undefined, onEnd: (r) => reports.push(r) });
    const left = new AbortController();
    const waiting = outage.wait('is down (refused)', left.signal);
    left.abort();
    expect(await waiting).toEqual({ kind: 'gone' });
    outage.close();
    expect(await until(() => reports.length > 0, 5000)).toBe(true);
    expect(reports.map((r) => r.outcome)).toEqual(['job ended']);
  });

  it('a wall clock set forward an hour does not end the wait: it counts the time it has waited, and says when it began', async () => {
    let serving = false;
    let calls = 0;
    const look = (): Promise<ServerLook> => {
      calls++;
      return Promise.resolve(serving ? { serving: true, saw: 'serves m', servedId: 'm' } : { serving: false, saw: 'is down (refused)' });
    };
    const lives: Array<OutageLive | undefined> = [];
    const outage = createRouteOutage('gpu', 60, look, { onLive: (l) => lives.push(l), onEnd: () => undefined });
    const before = Date.now();
    // Only the wall clock is faked: the probes run on real timers, as a laptop's do after its clock is corrected.
    vi.useFakeTimers({ toFake: ['Date'] });
    onTestFinished(() => void vi.useRealTimers());
    const waiting = outage.wait('is down (refused)', new AbortController().signal);
    vi.setSystemTime(Date.now() + 3_600_000);
    expect(await until(() => calls >= 1, 10_000, 20)).toBe(true); // a probe after the clock moved
    serving = true;
    expect(await waiting).toEqual({ kind: 'serving', servedId: 'm' });
    expect(Date.parse(lives[0]!.since) - before).toBeLessThan(60_000);
  });

  it('with failover: no move is asked before failover_after_s; then one at every probe until it moves, and the wait ends there, reported as moved', async () => {
    const looks = scripted([{ serving: false, saw: 'is down (refused)' }]);
    const reports: OutageReport[] = [];
    const asked: number[] = [];
    const answers: MoveAttempt[] = [{ kind: 'stay', why: 'gpu-b has no free slot (1 in all: 1 by this process)' }, { kind: 'moved', to: 'gpu-b', servedId: 'm' }];
    // Fake timers: the probes' back-off and the grace run on the test's clock, exact to the millisecond, however loaded the machine.
    vi.useFakeTimers();
    onTestFinished(() => void vi.useRealTimers());
    const began = Date.now();
    const outage = createRouteOutage('gpu-a', 60, looks.look, { onLive: () => undefined, onEnd: (r) => reports.push(r) }, {
      afterS: 0.7,
      tryMove: (since, saw) => {
        asked.push(Date.now() - began);
        expect(saw).toBe('is down (refused)');
        expect(Date.parse(since)).toBeGreaterThanOrEqual(began - 5);
        return Promise.resolve(answers[asked.length - 1]!);
      },
    });
    const waiting = outage.wait('is down (refused)', new AbortController().signal);
    await vi.advanceTimersByTimeAsync(699);
    expect(asked).toEqual([]); // no move before failover_after_s
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await waiting).toEqual({ kind: 'serving', servedId: 'm' });
    expect(asked).toHaveLength(2);
    expect(asked[0]).toBe(700); // tried at the grace, not at the next probe after it
    expect(asked[1]).toBeGreaterThan(700);
    expect(reports).toMatchObject([{ endpoint: 'gpu-a', outcome: 'moved' }]);
    // The next outage is the new endpoint's.
    const again = outage.wait('is down (refused)', new AbortController().signal);
    outage.close();
    await again;
    expect(reports.at(-1)).toMatchObject({ endpoint: 'gpu-b', outcome: 'job ended' });
  });

  it('with failover and nowhere to go: the deadline\'s words end with why no other endpoint could take the job', async () => {
    const looks = scripted([{ serving: false, saw: 'is down (refused)' }]);
    const outage = createRouteOutage('gpu-a', 0.5, looks.look, { onLive: () => undefined, onEnd: () => undefined }, {
      afterS: 0,
      tryMove: () => Promise.resolve({ kind: 'stay', why: 'no other endpoint serves m now (gpu-b is down (refused))' }),
    });
    const outcome = await outage.wait('is down (refused)', new AbortController().signal);
    expect(outcome.kind === 'expired' && outcome.message).toMatch(/; it is down \(refused\); no other endpoint could take the job: no other endpoint serves m now \(gpu-b is down \(refused\)\)$/);
  });
});
