import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/node/**/*.test.ts', 'tests/browser/**/*.test.ts'],
    // Runaway guards, not speed checks: a test beside another npm test runs two to three times slower.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // scripts/test.sh runs the Node files and the browser files in two processes side by side; each
    // runs its files one at a time (the browser files share one Chromium and one dev server).
    fileParallelism: false,
  },
});
