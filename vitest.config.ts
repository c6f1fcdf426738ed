import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/real needs a llama-server built from source: `npm run test:real` (vitest.real.config.ts); test/claude-versions
    // fetches Claude Code releases: `npm run test:claude-versions`.
    exclude: ['test/real/**', 'test/claude-versions/**', '**/node_modules/**'],
    // End-to-end tests spawn the real Claude Code binary; two cores cannot run many at once.
    maxWorkers: 2,
    // The run's temp folders in one of its own, removed at the end (test/helpers/run-temp.ts).
    globalSetup: ['test/helpers/run-temp.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
