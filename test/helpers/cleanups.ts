/**
 * What a test started (servers, apps, temporary folders) is ended after it, newest first, so a
 * server goes before the files it used. One afterEach per test file.
 */
import { afterEach } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '../sim/index.js';

export interface Cleanups {
  push(cleanup: () => unknown): void;
}

export function cleanupsAfterEach(): Cleanups {
  const pending: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of pending.splice(0).reverse()) await cleanup();
  });
  return { push: (cleanup) => void pending.push(cleanup) };
}

/** A simulator closed after the test. */
export async function simulatorFor(cleanups: Cleanups, options: SimulatorOptions): Promise<Simulator> {
  const sim = await startSimulator(options);
  cleanups.push(() => sim.close());
  return sim;
}
