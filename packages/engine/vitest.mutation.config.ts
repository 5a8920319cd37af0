import { defineConfig } from 'vitest/config';

/**
 * The integration tests that guard the modules `stryker.config.mjs` mutates (join, finalize, route,
 * dead-letter, claim, relay); the rest of the suite spawns worker processes, which run unmutated code.
 */
export default defineConfig({
  test: {
    include: [
      'src/process/join.integration.test.ts',
      'src/process/claim.integration.test.ts',
      'src/process/commit.integration.test.ts',
      'src/process/guards.integration.test.ts',
      'src/process/dead-letter.integration.test.ts',
      'src/process/filtered.integration.test.ts',
      'src/runs/failures.integration.test.ts',
      'src/runs/routing.integration.test.ts',
      'src/runtime/relay.integration.test.ts',
    ],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
