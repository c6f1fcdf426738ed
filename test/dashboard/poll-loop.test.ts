/** The live feed's read loop: never overlaps itself, waits as long as it is told, and stops for good. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pollLoop } from '../../src/dashboard/poll-loop.js';

// Fake timers: a run's 30 ms and the loop's delays pass on the test's clock, exact however loaded the machine.
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('poll loop', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('runs again only after a run ends, with the delay computed from how long it took', async () => {
    let active = 0;
    let overlapped = false;
    const took: number[] = [];
    const stop = pollLoop(
      async () => {
        overlapped ||= active > 0;
        active += 1;
        await sleep(30);
        active -= 1;
      },
      (tookMs) => (took.push(tookMs), 5),
    );
    await vi.advanceTimersByTimeAsync(200);
    stop();
    expect(overlapped).toBe(false);
    // Each run takes 30 ms and the next starts 5 ms after it ends: runs end at 30, 65, 100, 135, 170.
    expect(took).toEqual([30, 30, 30, 30, 30]);
  });

  it('schedules nothing after stop, not even from a run still under way', async () => {
    let runs = 0;
    const stop = pollLoop(
      async () => {
        runs += 1;
        await sleep(30);
      },
      () => 1,
    );
    stop(); // the first run is still reading
    await vi.advanceTimersByTimeAsync(100);
    expect(runs).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });
});
