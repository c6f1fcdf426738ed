/** The live feed's read loop: never overlaps itself, waits as long as it is told, and stops for good. */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { pollLoop } from '../../src/dashboard/poll-loop.js';

describe('poll loop', () => {
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
    await sleep(200);
    stop();
    expect(overlapped).toBe(false);
    expect(took.length).toBeGreaterThanOrEqual(2);
    expect(Math.min(...took)).toBeGreaterThanOrEqual(25);
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
    await sleep(100);
    expect(runs).toBe(1);
  });
});
