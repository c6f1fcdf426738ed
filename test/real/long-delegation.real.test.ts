/**
 * Issue 37's figure: with the real Claude Code as the caller in print mode, a job of about 150 s (five turns of
 * 30 s, paced by the simulator) costs the caller two turns and no polling. npm test runs the same scenario at a
 * tenth of the pace (test/caller/delegation.e2e.test.ts).
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { printModeDelegation } from '../caller/print-mode-delegation.js';
import { startCallerRig, type CallerRig } from '../caller/rig.js';

describe('a 150-s delegation in print mode', { timeout: 600_000 }, () => {
  let rig: CallerRig;
  beforeAll(async () => {
    rig = await startCallerRig({ jobSlots: 1 });
  }, 60_000);
  afterAll(async () => rig?.close());

  it('costs the caller the call and its answer, however long the job runs', async () => {
    await printModeDelegation(rig, 30_000);
  });
});
