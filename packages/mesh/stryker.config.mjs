// Mutation testing of the pure domain package (`npm run test:mutation`, not part of `npm test`).
// Every source file is mutated; the package's own unit and property tests must kill the mutants.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: ['src/**/*.ts', '!src/**/*.test.ts'],
  coverageAnalysis: 'perTest',
  // Static mutants (module-level constants) rerun every test for each mutant: half the time for
  // about an eighth of the mutants. They are reported as ignored, outside the score.
  ignoreStatic: true,
  // A mutant that loops (the lexer, the parser) is cut off soon: timeouts count as detected.
  timeoutMS: 3000,
  timeoutFactor: 1.25,
  // The machine is shared: two test processes at most.
  concurrency: 2,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: '../../reports/mutation/mesh.json' },
  // Sandboxes two levels below the repository root, like the package itself, so the tests' relative
  // imports of examples/ (`../../../examples/meshes/…`) resolve inside the sandbox too. In
  // packages/mesh/.stryker-tmp those imports failed, the files that make them never loaded, and
  // every mutant of validate.ts, parse.ts and join-paths.ts was reported as "no coverage".
  tempDirName: '../../.stryker-tmp',
  // At the same depth the tsconfig's `extends` resolves unchanged: Stryker must not rewrite it.
  tsconfigFile: 'tsconfig.none.json',
  thresholds: { high: 90, low: 85, break: 85 },
};
