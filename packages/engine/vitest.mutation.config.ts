import { defineConfig } from 'vitest/config';

/**
 * The integration tests that guard each module `stryker.config.mjs` mutates; `TRELLIS_MUTATE`
 * (comma-separated module names, default all) picks the same modules there and here, so a run only
 * loads the tests that can kill its mutants. The rest of the suite spawns worker processes, which
 * run unmutated code. A name ending in `.test` is a unit test file; any other is `<name>.integration.test.ts`.
 */
const TESTS: Record<string, string[]> = {
  join: ['process/join', 'process/join-skips', 'process/filtered', 'process/commit'],
  // The join's own tests, which call runJoins on parts set up by hand (the run itself goes beyond 1 h with the list above).
  'join-direct': ['process/join', 'process/join-skips'],
  finalize: ['runs/failures', 'process/filtered', 'process/claim', 'process/run-end'],
  // `process/route.test` is a unit test (pure routing on a compiled plan), the rest integration tests.
  route: ['process/route.test', 'process/guards', 'process/filtered', 'runs/routing'],
  'dead-letter': ['process/dead-letter', 'process/dead-letter-outcome', 'process/guards', 'runs/failures', 'runtime/local-bus-refusals'],
  // Heavy messages (claimHeavy, completeHeavy) and a light step that throws (reopenFailed) need lease and dead-letter.
  claim: ['process/claim', 'process/commit', 'process/join', 'process/lease', 'process/dead-letter'],
  relay: ['runtime/relay', 'runtime/relay-repair'],
};
const picked = (process.env.TRELLIS_MUTATE ?? Object.keys(TESTS).join(',')).split(',').map((m) => m.trim());

export default defineConfig({
  test: {
    include: [...new Set(picked.flatMap((m) => TESTS[m] ?? []))].map((t) => (t.endsWith('.test') ? `src/${t}.ts` : `src/${t}.integration.test.ts`)),
    fileParallelism: false,
    testTimeout: 120_000,
    // Tests that run on both databases run on Postgres alone here: the mutated code is the same on
    // both, and the embedded database would double each mutant's time (join.integration.test.ts).
    env: { TRELLIS_TEST_KINDS: 'postgres' },
    hookTimeout: 60_000,
  },
});
