import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Mutation-testing sandboxes (npm run test:mutation:mesh) hold mutated copies of these tests.
    exclude: [...configDefaults.exclude, '.stryker-tmp/**'],
    // Property tests run hundreds of cases: on a loaded two-core machine they need more than 5 s.
    testTimeout: 30_000,
  },
});
