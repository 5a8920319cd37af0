// Mutation testing of the engine's critical modules against their integration tests (real Postgres
// and Redis: set TRELLIS_TEST_DATABASE_URL and TRELLIS_CORPUS_DIR as for `npm test`). Slow: one
// module takes minutes to tens of minutes, so `TRELLIS_MUTATE=join,route` picks modules (default all).
// Not part of `npm test`; run with `npm run test:mutation:engine`.
/** Module name → source file. */
const MODULES = {
  join: 'src/process/join.ts',
  // The same file against its direct tests only, on Postgres only (about 30 min at concurrency 1).
  'join-direct': 'src/process/join.ts',
  finalize: 'src/process/run-end.ts',
  route: 'src/process/route.ts',
  'dead-letter': 'src/process/dead-letter.ts',
  claim: 'src/process/claim.ts',
  relay: 'src/runtime/relay.ts',
};
const picked = (process.env.TRELLIS_MUTATE ?? Object.keys(MODULES).join(',')).split(',').map((m) => m.trim());
for (const m of picked) if (!MODULES[m]) throw new Error(`TRELLIS_MUTATE: unknown module ${m}; one of ${Object.keys(MODULES).join(', ')}`);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  mutate: [...new Set(picked.map((m) => MODULES[m]))],
  coverageAnalysis: 'perTest',
  ignoreStatic: true,
  // Integration tests share one Postgres and Redis and two CPUs: one test process at a time.
  concurrency: 1,
  timeoutMS: 20_000,
  // The first run of the tests (to measure coverage) takes minutes on a loaded machine.
  dryRunTimeoutMinutes: 30,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: `../../reports/mutation/engine-${picked.join('-')}.json` },
  // Sandboxes two levels below the repository root, like the package, so the test harness's paths
  // to examples/ and workers/ resolve; tsconfig is left as it is (its `extends` resolves unchanged).
  tempDirName: '../../.stryker-tmp',
  tsconfigFile: 'tsconfig.none.json',
  thresholds: { high: 80, low: 70, break: null },
};
