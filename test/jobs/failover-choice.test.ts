/** Where a running job may move when its endpoint stops serving its model (src/jobs/placement/failover-choice.ts), and the words when nowhere. */
import { describe, expect, it } from 'vitest';
import type { EndpointProbe } from '../../src/backends/types.js';
import { defaultsSchema, type Config, type Endpoint } from '../../src/config/schema.js';
import { chooseMove, type MoveInput } from '../../src/jobs/placement/failover-choice.js';
import { toldWindow } from '../../src/jobs/session/failover.js';
import { sameModelRule } from '../../src/jobs/placement/same-model.js';
import { resolveModel } from '../../src/registry/resolve.js';
import type { EndpointLoad } from '../../src/registry/slot-use.js';

const MODEL = 'unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL';
const endpoint = (name: string): Endpoint => ({ name, base_url: `http://${name}:1`, backend: 'llama.cpp' });
const probe = (name: string, ids: string[], opts: { context?: number; slots?: number; busy?: number; state?: EndpointProbe['state'] } = {}): EndpointProbe => ({
  endpoint: name, baseUrl: '', backend: 'llama.cpp', host: undefined, notes: undefined, state: opts.state ?? 'up', hostState: 'up', reason: opts.state === 'down' ? 'host is up, nothing listens' : '',
  models: ids.map((id) => ({ id, aliases: [], context: opts.context, contextSource: opts.context === undefined ? 'unknown' : 'llama.cpp /props n_ctx (per slot)', warnings: [] })),
  slots: { total: opts.slots ?? 1, busy: opts.busy ?? 0, free: (opts.slots ?? 1) - (opts.busy ?? 0), source: '/slots' }, metrics: { enabled: true }, server: {}, warnings: [], elapsedMs: 1,
});
const config = (names: string[]): Config => ({ path: undefined, sidecarPath: '/dev/null', endpoints: names.map(endpoint), models: [], defaults: defaultsSchema.parse({}) });
const idle = (): EndpointLoad => ({ thisProcess: 0, otherProcesses: 0, ourInFlight: 0 });

function input(probes: EndpointProbe[], extra: Partial<MoveInput> = {}): MoveInput {
  const names = probes.map((p) => p.endpoint);
  return {
    resolution: 'resolution' in extra ? extra.resolution : resolveModel(config(names), probes, { model: MODEL }),
    from: 'gpu-a',
    servedModel: MODEL,
    sameModel: sameModelRule(MODEL, undefined),
    toldWindow: 131072,
    loadOf: idle,
    mayTake: () => true,
    othersNow: [],
    ...extra,
  };
}
const down = probe('gpu-a', [], { state: 'down' });

describe('where a job whose endpoint is gone may move', () => {
  it('another endpoint serving the same id with a window as large and a free slot', () => {
    const decision = chooseMove(input([down, probe('gpu-b', [MODEL], { context: 131072 })]));
    expect('placement' in decision && decision.placement.candidate.endpoint.name).toBe('gpu-b');
    expect('placement' in decision && decision.placement.reason).toBe('gpu-b is the only endpoint serving the model');
  });

  it('never the endpoint it leaves, even when that one serves the model again meanwhile', () => {
    expect(chooseMove(input([probe('gpu-a', [MODEL], { context: 131072 })], { othersNow: [] }))).toEqual({ why: `no other endpoint serves ${MODEL} now (it is the only endpoint configured)` });
  });

  it('a smaller window, or one the server does not report, is no place: the session was told more', () => {
    expect(chooseMove(input([down, probe('gpu-b', [MODEL], { context: 32768 })]))).toEqual({ why: `gpu-b serves ${MODEL} with a 32768-token window, smaller than the 131072 tokens the session was told` });
    expect(chooseMove(input([down, probe('gpu-b', [MODEL])]))).toEqual({ why: `gpu-b serves ${MODEL} with a window it does not report, and the session was told 131072 tokens` });
    // A larger window is fine: Claude Code compacts by the smaller number it was told.
    expect('placement' in chooseMove(input([down, probe('gpu-b', [MODEL], { context: 262144 })]))).toBe(true);
    // Told none (Claude Code assumes 1,000,000): only an endpoint that reports none either.
    expect('placement' in chooseMove(input([down, probe('gpu-b', [MODEL])], { toldWindow: undefined }))).toBe(true);
    expect(chooseMove(input([down, probe('gpu-b', [MODEL], { context: 131072 })], { toldWindow: undefined }))).toEqual({ why: `gpu-b serves ${MODEL} with a 131072-token window, and the session was told none (Claude Code then assumes 1000000)` });
  });

  it('no free slot, or one owed to a job queued earlier: no move, saying which', () => {
    const full = input([down, probe('gpu-b', [MODEL], { context: 131072, busy: 1 })], { loadOf: (e) => (e === 'gpu-b' ? { thisProcess: 1, otherProcesses: 0, ourInFlight: 1 } : idle()) });
    expect(chooseMove(full)).toEqual({ why: 'gpu-b has no free slot (1 in all: 1 by this process)' });
    const owed = input([down, probe('gpu-b', [MODEL], { context: 131072 })], { mayTake: () => false });
    expect(chooseMove(owed)).toEqual({ why: "gpu-b's free slot is owed to a job queued earlier" });
  });

  it('another model elsewhere is not the same model (the same-model rule); a served_name glob accepts its matches', () => {
    const other = probe('gpu-b', ['unsloth/Qwen3.8-27B-GGUF:Q8_0'], { context: 131072 });
    const term = 'unsloth/Qwen3.8-27B-GGUF:*';
    const resolution = resolveModel({ ...config(['gpu-a', 'gpu-b']), models: [{ name: 'qwen', notes: '', served_name: term }] }, [down, other], { model: 'qwen' });
    expect(chooseMove(input([down, other], { resolution, othersNow: ['gpu-b serves unsloth/Qwen3.8-27B-GGUF:Q8_0'] }))).toEqual({
      why: `no other endpoint serves ${MODEL} now (gpu-b serves unsloth/Qwen3.8-27B-GGUF:Q8_0)`,
    });
    const glob = chooseMove(input([down, other], { resolution, sameModel: sameModelRule(MODEL, term) }));
    expect('placement' in glob && glob.placement.candidate.model.id).toBe('unsloth/Qwen3.8-27B-GGUF:Q8_0');
  });

  it('of several, the one with the most free capacity; every reason when none fits', () => {
    const decision = chooseMove(input([down, probe('gpu-b', [MODEL], { context: 131072, slots: 1 }), probe('gpu-c', [MODEL], { context: 131072, slots: 4 })]));
    expect('placement' in decision && decision.placement.candidate.endpoint.name).toBe('gpu-c');
    const none = chooseMove(input([down, probe('gpu-b', [MODEL], { context: 8192 }), probe('gpu-c', [MODEL], { context: 131072, busy: 1 })]));
    expect(none).toEqual({ why: `gpu-b serves ${MODEL} with a 8192-token window, smaller than the 131072 tokens the session was told; gpu-c has no free slot (1 in all: 1 by other clients)` });
  });

  it('the window the session was told is its CLAUDE_CODE_MAX_CONTEXT_TOKENS', () => {
    expect(toldWindow({ CLAUDE_CODE_MAX_CONTEXT_TOKENS: '65536' })).toBe(65536);
    expect(toldWindow({})).toBeUndefined();
    expect(toldWindow({ CLAUDE_CODE_MAX_CONTEXT_TOKENS: 'lots' })).toBeUndefined();
  });
});
