import { defineConfig } from 'vitest/config';

/**
 * `npm run test:real`: end-to-end against a real llama-server built from source (test/real/build-llama-server.ts)
 * and tiny models written at setup. Not part of `npm test`: the first run builds llama.cpp (minutes).
 */
export default defineConfig({
  test: {
    include: ['test/real/**/*.test.ts'],
    globalSetup: ['test/helpers/run-temp.ts', 'test/real/global-setup.ts'],
    setupFiles: ['test/real/fresh-connections.ts'],
    // Each file runs its own llama-server and Claude Code sessions; two cores run one file at a time.
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 300_000,
  },
});
