import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { circlePath, importCircles, layerOf, readImportGraph, upImports, type ImportGraph } from './__tests__/import-graph.js';

const graph = readImportGraph(import.meta.dirname);

/**
 * The up-imports that stay, each explained in docs/architecture.md ("Rules the code keeps"): a lower
 * layer reading one table or constant a feature owns. A new up-import fails; so does one of these
 * gone (the list and the docs are then updated together).
 */
const KNOWN_UP_IMPORTS = [
  // The configuration names the embedder interface and validates model ids, methods and relevance
  // settings with the tables their features own.
  'config.ts -> semantic/embedder.ts',
  'config.ts -> semantic/text-model.ts',
  'config.ts -> recommend/methods.ts',
  'config.ts -> search/relevance-settings.ts',
  // …and refuses pins that change a reserved field's meaning, naming the fields the catalog reserves.
  'config.ts -> catalog/field-values.ts',
  // The configuration's schema types the host's embedders with the Embedder interface (a function
  // no JSON schema can state).
  'contract/config-schema.ts -> semantic/embedder.ts',
  // The contract publishes the recommendation method table (recommend/methods.ts) and the HMAC salt length.
  'contract/index.ts -> recommend/methods.ts',
  'contract/schemas.ts -> retail-media/hmac.ts',
  // The public API names the search key service's result types.
  'engine-api.ts -> keys/search-key-service.ts',
  // The PostgreSQL store offers shared catalogs (a store capability, store/shared-catalogs.ts) and
  // builds their implementation, CatalogReplication, imported lazily when a store shares catalogs.
  'store/postgres-store.ts -> replication/catalog-replication.ts',
];

/**
 * The shape modules whose type-only imports may close a circle: a catalog version's shape names the
 * classes it holds (dictionaries, the product store, tombstones), a search plan's the parts compiled
 * by merchandising and disjunctive facets, and the store interface the capabilities a store offers
 * (shared catalogs, which hold catalogs); those name the shape back. Types are erased when compiled:
 * no module loads another through them.
 */
const SHAPE_MODULES = new Set(['catalog/catalog-index.ts', 'search/search-plan.ts', 'store/store.ts']);

/** `graph` without the type-only imports made by a shape module or naming one. */
function withoutShapeTypeImports(g: ImportGraph): ImportGraph {
  return new Map([...g].map(([file, imports]) => [
    file,
    imports.filter((i) => !(i.typeOnly && (SHAPE_MODULES.has(file) || SHAPE_MODULES.has(i.target)))),
  ]));
}

/** Each circle as one readable loop of imports. */
function describeCircles(g: ImportGraph, runtimeOnly: boolean): string[] {
  return importCircles(g, runtimeOnly).map((c) => `${c.length} modules: ${circlePath(g, c, runtimeOnly).join(' -> ')}`);
}

describe('the engine imports', () => {
  it('reads the whole source tree, every module in a layer', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect([...graph.keys()].filter((file) => layerOf(file) < 0)).toEqual([]);
    expect(graph.get('catalog/catalog.ts')!.some((i) => i.target === 'catalog/build/build-catalog-state.ts')).toBe(true);
  });

  it('run no import back up the layers (the catalog imports no search, recommend or engine module) but the known ones', () => {
    const up = upImports(graph);
    expect(up.filter((u) => !KNOWN_UP_IMPORTS.includes(u))).toEqual([]);
    expect(KNOWN_UP_IMPORTS.filter((u) => !up.includes(u))).toEqual([]);
    expect(up.filter((u) => u.startsWith('catalog/'))).toEqual([]);
  });

  it('close no circle at run time', () => {
    expect(describeCircles(graph, true)).toEqual([]);
  });

  it('close no circle at all but through a shape module\'s type-only imports', () => {
    expect(describeCircles(withoutShapeTypeImports(graph), false)).toEqual([]);
  });

  it('never reach the HTTP adapter or another package by a relative path', () => {
    const outside = [...graph].flatMap(([file, imports]) => imports.filter((i) => i.target.startsWith('..')).map((i) => `${file} -> ${i.target}`));
    expect(outside).toEqual([]);
  });
});

describe('the import graph reader', () => {
  it('finds circles and up-imports in a made graph, and tells type-only circles apart', () => {
    const made: ImportGraph = new Map([
      ['catalog/a.ts', [{ target: 'catalog/b.ts', typeOnly: false }, { target: 'search/s.ts', typeOnly: true }]],
      ['catalog/b.ts', [{ target: 'catalog/a.ts', typeOnly: true }]],
      ['search/s.ts', [{ target: 'catalog/a.ts', typeOnly: false }]],
      ['util/u.ts', []],
    ]);
    expect(upImports(made)).toEqual(['catalog/a.ts -> search/s.ts']);
    expect(importCircles(made)).toEqual([['catalog/a.ts', 'catalog/b.ts', 'search/s.ts']]);
    expect(importCircles(made, true)).toEqual([]);
    expect(circlePath(made, ['catalog/a.ts', 'catalog/b.ts', 'search/s.ts'])).toEqual(['catalog/a.ts', 'catalog/b.ts', 'catalog/a.ts']);
    expect(path.posix.isAbsolute([...graph.keys()][0])).toBe(false);
  });
});
