import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Each overlay is rendered by `kubectl kustomize` (a child process): allow for a loaded machine.
    testTimeout: 30_000,
  },
});
