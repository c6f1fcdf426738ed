import { defineConfig } from 'vitest/config';

/**
 * `npm run test:claude-versions`: the core end-to-end set on each tested Claude Code release, fetched from the npm
 * registry into ~/.cache/localagents/claude-code on first use. Not part of `npm test` (each release is a download
 * and a few minutes of cold Claude Code starts).
 */
export default defineConfig({
  test: {
    include: ['test/claude-versions/**/*.test.ts'],
    globalSetup: ['test/helpers/run-temp.ts', 'test/claude-versions/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 400_000,
    hookTimeout: 300_000,
  },
});
