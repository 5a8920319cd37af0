// Mutation testing of the pure domain package (`npm run test:mutation`, not part of `npm test`).
// Every source file is mutated; the package's own unit and property tests must kill the mutants.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: ['src/**/*.ts', '!src/**/*.test.ts'],
  coverageAnalysis: 'perTest',
  // The machine is shared: two test processes at most.
  concurrency: 2,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: '../../reports/mutation/mesh.json' },
  tempDirName: '.stryker-tmp',
  thresholds: { high: 90, low: 85, break: 85 },
};
