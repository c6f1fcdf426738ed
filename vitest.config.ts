import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/real needs a llama-server built from source: `npm run test:real` (vitest.real.config.ts); test/claude-versions
    // fetches Claude Code releases: `npm run test:claude-versions`.
    exclude: ['test/real/**', 'test/claude-versions/**', '**/node_modules/**'],
    // End-to-end tests spawn the real Claude Code binary; two cores cannot run many at once. A third worker made the
    // suite faster on a quiet machine (vitest 670 s → 596 s) but failed the timing-sensitive files beside another
    // `npm test` (load 11–14) where two pass.
    maxWorkers: 2,
    // Test files share their worker's loaded modules instead of a fresh process each: starting a worker and loading
    // the same modules again per file was about a seventh of the suite's CPU. So a file leaves no global state
    // behind: fake timers are restored after each test, and each file makes its own temp folders.
    isolate: false,
    // The run's temp folders in one of its own, removed at the end (test/helpers/run-temp.ts).
    globalSetup: ['test/helpers/run-temp.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
