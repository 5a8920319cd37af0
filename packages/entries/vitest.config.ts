import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Integration tests share one Postgres, one Redis and two CPUs: one file at a time keeps
    // timings honest; each test still gets its own database and queue prefix.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
