import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests run on the TypeScript sources: the adapter's and bench's imports of the engine resolve to its
// src/, so no build is needed between an edit and a test run.
export default defineConfig({
  resolve: {
    alias: {
      '@aisle/engine': fileURLToPath(new URL('./packages/engine/src/index.ts', import.meta.url)),
      '@aisle/http-adapter': fileURLToPath(new URL('./packages/http-adapter/src/index.ts', import.meta.url)),
      '@aisle/instantsearch': fileURLToPath(new URL('./packages/instantsearch/src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
