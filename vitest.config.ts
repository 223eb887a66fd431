import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/node/**/*.test.ts', 'tests/browser/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Browser tests share one Chromium and one dev server; keep files sequential on 2 cores.
    fileParallelism: false,
  },
});
