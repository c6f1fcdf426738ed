/**
 * A read loop for the live feed: runs `tick` now, and again each time `delayMs(tookMs)`
 * after the previous run ends, so a slow read is never overlapped by the next one.
 * `tick` handles its own errors. Stopping also keeps a run still under way from
 * scheduling another, so a loop stopped and started again never runs twice over.
 */
export function pollLoop(tick: () => Promise<void>, delayMs: (tookMs: number) => number): () => void {
  let timer: NodeJS.Timeout | undefined;
  let running = true;
  const run = async (): Promise<void> => {
    const began = performance.now();
    try {
      await tick();
    } finally {
      if (running) timer = setTimeout(() => void run(), delayMs(performance.now() - began));
    }
  };
  void run();
  return () => {
    running = false;
    clearTimeout(timer);
  };
}
