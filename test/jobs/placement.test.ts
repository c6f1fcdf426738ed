import { describe, expect, it } from 'vitest';
import type { EndpointProbe } from '../../src/backends/types.js';
import type { Endpoint } from '../../src/config/schema.js';
import { capacityOf } from '../../src/backends/capacity.js';
import { place } from '../../src/jobs/placement/placement.js';
import { slotUse, type EndpointLoad } from '../../src/registry/slot-use.js';
import type { Candidate } from '../../src/registry/resolve.js';

const endpoint = (name: string, extra: Partial<Endpoint> = {}): Endpoint => ({ name, base_url: `http://${name}:1`, backend: 'llama.cpp', ...extra });
const probe = (name: string, total: number | undefined, busy = 0): EndpointProbe => ({
  endpoint: name, baseUrl: '', backend: 'llama.cpp', host: undefined, notes: undefined, state: 'up', hostState: 'up', reason: '', models: [],
  slots: total === undefined ? undefined : { total, busy, free: total - busy, source: '/slots' }, metrics: { enabled: true }, server: {}, warnings: [], elapsedMs: 1,
});
const candidate = (e: Endpoint, p: EndpointProbe): Candidate => ({ endpoint: e, probe: p, model: { id: 'm', aliases: [], context: 1, contextSource: 'unknown', warnings: [] }, context: 1, contextSource: 'unknown', vision: false });

describe('placement', () => {
  it('takes capacity from max_jobs, else the slot count, else 4 for vLLM', () => {
    expect(capacityOf(endpoint('a', { max_jobs: 7 }), probe('a', 2))).toBe(7);
    expect(capacityOf(endpoint('a'), probe('a', 2))).toBe(2);
    expect(capacityOf(endpoint('v', { backend: 'vllm' }), probe('v', undefined))).toBe(4);
  });

  it('counts only other clients\' busy slots against capacity, not our own requests', () => {
    const load = (thisProcess: number, otherProcesses: number, ourInFlight: number): EndpointLoad => ({ thisProcess, otherProcesses, ourInFlight });
    // 4 slots, 3 busy, all 3 ours (3 jobs, 3 requests in flight): one place left.
    expect(slotUse(endpoint('a'), probe('a', 4, 3), load(3, 0, 3))).toEqual({ capacity: 4, this_process: 3, other_processes: 0, other_clients: 0, free: 1 });
    // The same busy slots with none of ours in flight: another client holds them.
    expect(slotUse(endpoint('a'), probe('a', 4, 3), load(0, 0, 0))).toMatchObject({ other_clients: 3, free: 1 });
    expect(slotUse(endpoint('a'), probe('a', 4, 3), load(1, 0, 0)).free).toBe(0);
  });

  it('counts another process\'s lease once: as a lease, not again as a busy slot', () => {
    // 4 slots; 2 busy, both by another localagents process's 2 leased jobs; one job of ours between requests.
    expect(slotUse(endpoint('a'), probe('a', 4, 2), { thisProcess: 1, otherProcesses: 2, ourInFlight: 0 })).toEqual({
      capacity: 4, this_process: 1, other_processes: 2, other_clients: 0, free: 1,
    });
    // A third busy slot no lease explains is another client's.
    expect(slotUse(endpoint('a'), probe('a', 4, 3), { thisProcess: 1, otherProcesses: 2, ourInFlight: 0 })).toMatchObject({ other_clients: 1, free: 0 });
  });

  it('prefers the warm endpoint, then the most free capacity, then config order', () => {
    const a = candidate(endpoint('a'), probe('a', 2));
    const b = candidate(endpoint('b'), probe('b', 3));
    const idle = (): EndpointLoad => ({ thisProcess: 0, otherProcesses: 0, ourInFlight: 0 });
    expect(place({ candidates: [a, b], loadOf: idle, warmEndpoint: undefined })?.candidate.endpoint.name).toBe('b');
    expect(place({ candidates: [a, b], loadOf: idle, warmEndpoint: 'a' })?.candidate.endpoint.name).toBe('a');
    const full = (name: string): EndpointLoad => ({ thisProcess: 0, otherProcesses: name === 'a' ? 2 : 0, ourInFlight: 0 });
    expect(place({ candidates: [a, b], loadOf: full, warmEndpoint: 'a' })?.candidate.endpoint.name).toBe('b');
    expect(place({ candidates: [a], loadOf: full, warmEndpoint: 'a' })).toBeUndefined();
  });

  it("puts the menu entry's preferred endpoint first while it has room, and says why another was used", () => {
    const a = candidate(endpoint('a'), probe('a', 1));
    const b = candidate(endpoint('b'), probe('b', 4));
    const idle = (): EndpointLoad => ({ thisProcess: 0, otherProcesses: 0, ourInFlight: 0 });
    const preferred = place({ candidates: [a, b], loadOf: idle, warmEndpoint: 'b', preferredEndpoint: 'a' });
    expect(preferred?.candidate.endpoint.name).toBe('a');
    expect(preferred?.reason).toBe("the menu entry's preferred endpoint (a)");
    const aFull = (name: string): EndpointLoad => ({ thisProcess: name === 'a' ? 1 : 0, otherProcesses: 0, ourInFlight: 0 });
    const spilled = place({ candidates: [a, b], loadOf: aFull, warmEndpoint: undefined, preferredEndpoint: 'a' });
    expect(spilled?.candidate.endpoint.name).toBe('b');
    expect(spilled?.reason).toBe('preferred endpoint a has no free slot; b has the most free capacity of the 1 endpoint(s) serving the model with room');
    const down = place({ candidates: [b], loadOf: idle, warmEndpoint: undefined, preferredEndpoint: 'a', preferredMissing: 'preferred endpoint a is down (refused)' });
    expect(down?.reason).toBe('preferred endpoint a is down (refused); b is the only endpoint serving the model');
    expect(place({ candidates: [b], loadOf: idle, warmEndpoint: undefined, pinnedEndpoint: 'b' })?.reason).toBe('pinned by the endpoint argument (b)');
  });
});
