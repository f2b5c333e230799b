import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string): string => fileURLToPath(new URL(`./packages/${path}`, import.meta.url));

// Tests run on the TypeScript sources: the adapter's and bench's imports of the engine (its entry point
// and its `demo` and `internal` subpaths, as in packages/engine/package.json `exports`) resolve to its
// src/, so no build is needed between an edit and a test run. Exact matches: a plain string key would
// also rewrite the subpaths.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@aisle\/engine$/, replacement: src('engine/src/index.ts') },
      { find: /^@aisle\/engine\/demo$/, replacement: src('engine/src/demo/index.ts') },
      { find: /^@aisle\/engine\/internal$/, replacement: src('engine/src/internal.ts') },
      { find: /^@aisle\/http-adapter$/, replacement: src('http-adapter/src/index.ts') },
      { find: /^@aisle\/instantsearch$/, replacement: src('instantsearch/src/index.ts') },
    ],
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
