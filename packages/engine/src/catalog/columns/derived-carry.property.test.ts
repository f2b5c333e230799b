/**
 * Derived structures carried from version to version (derived-carry.ts) against the same structures
 * derived from scratch on the version: after a random sequence of appends, changed products
 * (tombstoned and appended again), value patches (one of them a hierarchy's level), deletes and
 * merges, and restarts (the catalog written to a snapshot and loaded from it), every hierarchy's tree
 * and node column, the text sort ranks and the key orders equal those a one-go derivation gives (numeric
 * orders too) — and were carried (or derived before publishing, or kept in the snapshot), not built on
 * first use.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HierarchySetting } from '../../contract/settings-schema.js';
import type { Product } from '../../types.js';
import { Catalog } from '../catalog.js';
import type { CatalogState } from '../catalog-index.js';
import { buildHierarchy, derivedHierarchies, hierarchyOf, type HierarchyTree } from './hierarchy-column.js';
import { ensureNumericOrder, ensureTextSortRanks, keyOrder, textSortRanks } from './text-column-lookups.js';
import { knownNumericOrder, numericOrderSteps, numericValues } from './numeric-column.js';
import { foldedInverted } from './text-column.js';
import { runSteps } from '../steps.js';
import { appendProducts, planAppend } from '../changes/append-products.js';
import { decodeCatalogSnapshot, encodeCatalogSnapshot } from '../durability/snapshot.js';

const LEVELS = ['Home', 'Kitchen', ' Garden', 'Toys', 'Ålpha', 'home', '  '];
const BRANDS = ['Acme', 'acme', 'Zeta', 'Ålpha Beta', 'zeta & co'];
const HIERARCHIES: Record<string, HierarchySetting> = {
  sep: { field: 'path', separator: ' / ' },
  arr: { field: 'levels' },
  per: { fields: ['lvl0', 'lvl1', 'size'] },
  multi: { field: 'paths', separator: '/' },
};

const pathArb = fc.array(fc.constantFrom(...LEVELS), { maxLength: 3 });
const bodyArb = fc.record({
  path: pathArb,
  paths: fc.array(pathArb, { maxLength: 3 }),
  brand: fc.option(fc.constantFrom(...BRANDS), { nil: undefined }),
  size: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
  price: fc.integer({ min: 0, max: 9 }),
});
type Body = typeof bodyArb extends fc.Arbitrary<infer T> ? T : never;

function product(refId: string, { path, paths, brand, size, price }: Body): Product {
  const p: Product = { refId, title: `item ${brand ?? ''} ${path.join(' ')}`, price };
  if (path.length > 0) {
    p.path = path.join(' / ');
    p.levels = path;
    path.slice(0, 2).forEach((level, l) => { p[`lvl${l}`] = level; });
  }
  if (paths.length > 0) p.paths = paths.map((x) => x.join('/'));
  if (brand !== undefined) p.brand = brand;
  if (size !== undefined) p.size = size;
  return p;
}

type Op =
  | { kind: 'new'; bodies: Body[] }
  | { kind: 'change'; pick: number; body: Body }
  | { kind: 'numbers'; pick: number; price: number; size: number }
  | { kind: 'delete'; picks: number[] }
  | { kind: 'merge' }
  | { kind: 'restart' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('new' as const), bodies: fc.array(bodyArb, { minLength: 1, maxLength: 4 }) }) },
  fc.record({ kind: fc.constant('change' as const), pick: fc.nat(), body: bodyArb }),
  fc.record({ kind: fc.constant('numbers' as const), pick: fc.nat(), price: fc.integer({ min: 0, max: 9 }), size: fc.integer({ min: 0, max: 4 }) }),
  fc.record({ kind: fc.constant('delete' as const), picks: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('merge' as const) }),
  fc.record({ kind: fc.constant('restart' as const) }),
);

/** Applies `op` to the catalog; answers the catalog to go on with (a restart's is loaded from the snapshot). */
async function apply(catalog: Catalog, model: Product[], op: Op, fresh: { n: number }): Promise<Catalog> {
  if (op.kind === 'restart') return Catalog.fromState({}, decodeCatalogSnapshot(encodeCatalogSnapshot(catalog.state)).makeState);
  await applyChange(catalog, model, op, fresh);
  return catalog;
}

async function applyChange(catalog: Catalog, model: Product[], op: Exclude<Op, { kind: 'restart' }>, fresh: { n: number }): Promise<void> {
  if (op.kind === 'merge') { await catalog.merge(); return; }
  if (op.kind === 'new') {
    const products = op.bodies.map((b) => product(`n${fresh.n++}`, b));
    await catalog.upsert(products);
    model.push(...products);
    return;
  }
  if (model.length === 0) return;
  if (op.kind === 'delete') {
    const refIds = [...new Set(op.picks.map((p) => model[p % model.length]!.refId))];
    await catalog.delete(refIds);
    for (const r of refIds) model.splice(model.findIndex((p) => p.refId === r), 1);
    return;
  }
  const i = op.pick % model.length;
  // Numbers only: the value patch path (a hierarchy level among them when the product has a size).
  const next = op.kind === 'change' ? product(model[i]!.refId, op.body)
    : { ...model[i]!, price: op.price, ...(model[i]!.size === undefined ? {} : { size: op.size }) };
  await catalog.upsert([next]);
  model[i] = next;
}

/** Everything a search reads of a hierarchy, comparable. */
function hierarchyContents(tree: HierarchyTree) {
  const { column } = tree;
  const nodes = Array.from({ length: column.dictSize }, (_, x) => x);
  const paths = nodes.map((x) => { const levels: string[] = []; for (let y = x; y >= 0; y = tree.parent[y]!) levels.unshift(tree.value[y]!); return levels.join(' > '); });
  return {
    value: tree.value.slice(0, column.dictSize), parent: [...tree.parent.subarray(0, column.dictSize)],
    children: [-1, ...nodes].map((x) => [...tree.childrenOf(x)]),
    nodeOf: paths.map((p) => tree.nodeOf(p)),
    offsets: [...column.offsets], codes: [...column.codes], deepest: [...column.deepest],
    inverted: (({ valueOffsets, valueDocs }) => ({ valueOffsets: [...valueOffsets], valueDocs: [...valueDocs] }))(foldedInverted(column)),
  };
}

function expectHierarchiesAsFromScratch(state: CatalogState): void {
  for (const setting of Object.values(HIERARCHIES)) {
    expect(hierarchyContents(hierarchyOf(state, setting))).toEqual(hierarchyContents(buildHierarchy(state, setting)));
  }
}

function expectCarriedAsFromScratch(state: CatalogState, sorted: readonly string[], ordered: readonly string[]): void {
  expect(derivedHierarchies(state)).toHaveLength(Object.keys(HIERARCHIES).length);
  expectHierarchiesAsFromScratch(state);
  for (const name of sorted) {
    const fid = state.fieldByName.get(name)!;
    const { sortRank } = state.index.fields[fid]!.text!;
    expect(sortRank).toBeDefined();
    expect([...sortRank!]).toEqual([...textSortRanks(state.dictionaries[fid]!.values())]);
    const values = state.dictionaries[fid]!.values();
    const codeOfRank = values.map((_, c) => c).sort((a, b) => (values[a]! < values[b]! ? -1 : 1));
    expect([...keyOrder(state, fid).codeOfRank]).toEqual(codeOfRank);
  }
  for (const name of ordered) {
    const field = state.index.fields[state.fieldByName.get(name)!]!;
    // Carried: the order itself, or its base with the appended docs to merge in without a sort (an append's).
    const order = knownNumericOrder(field, state.index.docCount);
    expect(order).toBeDefined();
    expect([...order!]).toEqual([...runSteps(numericOrderSteps(numericValues(field), state.index.docCount))]);
  }
}

describe('derived structures carried to the next version', () => {
  it('equal those derived from scratch after random appends, patches, deletes and merges', async () => {
    // The paths the property is about, seen at least once: a hierarchy extended by an append (a
    // one-go derivation has no tail) and a value patch of a hierarchy's level.
    let extended = 0;
    let levelPatched = 0;
    let restartedWithDeletes = 0;
    await fc.assert(fc.asyncProperty(
      fc.array(bodyArb, { minLength: 1, maxLength: 40 }), fc.array(opArb, { minLength: 1, maxLength: 10 }),
      async (bodies, ops) => {
        let catalog = new Catalog({}, { mergeAt: () => 6 });
        const model = bodies.map((b, i) => product(`p${i}`, b));
        await catalog.upsert(model);
        // First use on the first version: every later one gets them from the one before.
        for (const setting of Object.values(HIERARCHIES)) hierarchyOf(catalog.state, setting);
        // Fields the first version has (one added later has no ranks until a text sort on it).
        let sorted = ['title', 'brand'].filter((name) => catalog.state.fieldByName.has(name));
        for (const name of sorted) {
          const fid = catalog.state.fieldByName.get(name)!;
          ensureTextSortRanks(catalog.state, fid);
          keyOrder(catalog.state, fid);
        }
        // Every product has a price: its numeric order is carried (merged) or derived before publishing.
        let ordered = ['price'];
        ensureNumericOrder(catalog.state, catalog.state.fieldByName.get('price')!);
        const fresh = { n: 0 };
        for (const op of ops) {
          catalog = await apply(catalog, model, op, fresh);
          const { state } = catalog;
          // A field a version lost (no product has it) has no ranks when it comes back.
          sorted = sorted.filter((name) => state.fieldByName.has(name));
          ordered = ordered.filter((name) => state.fieldByName.has(name));
          if (derivedHierarchies(state).some(({ tree }) => tree.column.valueTail !== undefined)) extended++;
          if (state.patchedSince?.fields.has('size')) levelPatched++;
          if (op.kind === 'restart' && state.index.deletedDocs !== undefined) restartedWithDeletes++;
          expectCarriedAsFromScratch(state, sorted, ordered);
        }
      },
    ), { numRuns: 100 });
    expect(extended).toBeGreaterThan(0);
    expect(levelPatched).toBeGreaterThan(0);
    expect(restartedWithDeletes).toBeGreaterThan(0);
  }, 120_000);

  it('a version appended to an older one than the latest gets nodes of its own', async () => {
    const body = (path: string[]): Body => ({ path, paths: [path], brand: undefined, size: 1, price: 0 });
    const catalog = new Catalog();
    await catalog.upsert([product('a', body(['Home', 'Kitchen']))]);
    const base = catalog.state;
    for (const setting of Object.values(HIERARCHIES)) hierarchyOf(base, setting);
    const appended = (p: Product) => runSteps(appendProducts(base, runSteps(planAppend(base, [[p]]))!, base.index.version + 1));
    // The first extends the shared tree in place; the second, from the same version, must not see its nodes.
    const first = appended(product('b', body(['Toys', 'Cars'])));
    const second = appended(product('c', body(['Home', 'Garden'])));
    for (const state of [base, first, second]) expectHierarchiesAsFromScratch(state);
    expect(hierarchyOf(second, HIERARCHIES.sep!).nodeOf('Toys')).toBeUndefined();
    expect(hierarchyOf(first, HIERARCHIES.sep!).nodeOf('Home > Garden')).toBeUndefined();
  });

  it('are derived in slices for the website\'s hierarchies (a snapshot of format 5, a setting put in force)', async () => {
    const catalog = new Catalog();
    await catalog.upsert([product('a', { path: ['Home', 'Kitchen'], paths: [['Toys']], brand: undefined, size: 2, price: 0 })]);
    expect(derivedHierarchies(catalog.state)).toHaveLength(0);
    await catalog.deriveHierarchies(HIERARCHIES);
    expect(derivedHierarchies(catalog.state)).toHaveLength(Object.keys(HIERARCHIES).length);
    expectHierarchiesAsFromScratch(catalog.state);
  });
});
