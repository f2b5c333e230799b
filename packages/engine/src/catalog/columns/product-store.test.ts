import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateCatalog } from '../../demo/generate-catalog.js';
import type { Product } from '../../types.js';
import type { CatalogState } from '../catalog-index.js';
import { Catalog } from '../catalog.js';
import { buildCatalogState, buildCatalogSteps } from '../build/build-catalog-state.js';
import { runSteps } from '../steps.js';
import { float32Value, isFloat32Value, productsOf } from './product-store.js';
import { decodeCatalogSnapshot, encodeCatalogSnapshot } from '../durability/snapshot.js';
import { liveBuildProducts, liveProductList } from '../changes/tombstones.js';
import { changedProducts } from '../changes/changed-products.js';

/** `value` with typed arrays as plain arrays (views over growable buffers of different room compare equal). */
function plain(value: unknown): unknown {
  if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<number>);
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [k, plain(v)]));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

/** Field names: a few shared ones (columns with several kinds of values), odd ones, an index-like one. */
// Keys named like Object.prototype's members read as absent where a product has none of its own.
const key = fc.constantFrom('title', 'price', 'tags', 'size', 'attrs', 'flag', '10', 'é', '__proto__', 'stock', 'constructor', 'toString');
const scalar = fc.oneof(
  fc.string(), fc.string({ unit: 'grapheme' }), fc.constantFrom('', '12.50', ' 3 ', '1e2', '007', 'true', 'null'),
  fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, -0, 1e300, 5e-324, 0.1),
  fc.boolean(),
);
/** Float32s written shortest, as feeds write embeddings: the vector column gives them back. */
const vector = fc.array(fc.float({ noNaN: true, noDefaultInfinity: true }).map((f) => float32Value(Math.fround(f))), { minLength: 3, maxLength: 3 });
const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 2, arbitrary: fc.array(fc.oneof(fc.string(), fc.constantFrom('a', 'b', 'c')), { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.array(fc.oneof(fc.integer(), fc.constantFrom(1, 1.5, -0)), { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) },
  { weight: 1, arbitrary: vector },
  { weight: 1, arbitrary: fc.constantFrom(null, [], {}, [[1]], [null], { a: { b: [1, 'x'] } }, [1, '1']) },
  { weight: 1, arbitrary: fc.jsonValue() },
);
// The reserved `image_vector` takes a list of finite numbers or null (a load refuses anything else: product-limits.ts).
const entry = fc.oneof(
  { weight: 12, arbitrary: fc.tuple(key, value) },
  { weight: 1, arbitrary: fc.tuple(fc.constant('image_vector'), fc.oneof(vector, fc.constant(null))) },
);
const body = fc.array(entry, { maxLength: 6 });

function productsOfArb(max: number): fc.Arbitrary<Product[]> {
  return fc.array(body, { maxLength: max }).map((bodies) => bodies.map((entries, i) => {
    const p: Record<string, unknown> = {};
    // Keys in the order drawn (JSON.parse keeps an own __proto__ key: define it, as a feed would have it).
    for (const [k, v] of entries) Object.defineProperty(p, k, { value: v, enumerable: true, writable: true, configurable: true });
    return { refId: `p${i}`, ...p } as Product;
  }));
}

const json = (p: unknown): string => JSON.stringify(p);

/**
 * Expects a build read from a store (`fromStore`) to equal a build of the same products as objects:
 * index, vocabulary, dictionaries, vectors and every product; product i's revision is `revisionOf(i)`
 * where that is known.
 */
function expectSameBuild(fromStore: CatalogState, fromObjects: CatalogState, revisionOf: (i: number) => number | undefined): void {
  expect(plain(fromStore.index)).toEqual(plain(fromObjects.index));
  expect(fromStore.vocabulary).toEqual(fromObjects.vocabulary);
  expect(fromStore.dictionaries.map((d) => d.values())).toEqual(fromObjects.dictionaries.map((d) => d.values()));
  expect(plain(fromStore.vectors)).toEqual(plain(fromObjects.vectors));
  expect(fromStore.store.length).toBe(fromObjects.store.length);
  for (let i = 0; i < fromObjects.store.length; i++) {
    expect(json(fromStore.store.decode(i))).toBe(json(fromObjects.store.decode(i)));
    const revision = revisionOf(i);
    if (revision !== undefined) expect(fromStore.store.revision(i)).toBe(revision);
  }
}

/** Every live product read back from the store is the one given, as JSON. */
function expectStored(catalog: Catalog, expected: readonly Product[]): void {
  const list = liveProductList(catalog.state);
  expect(list.length).toBe(expected.length);
  for (let i = 0; i < list.length; i++) expect(json(list.get(i))).toBe(json(expected[i]));
}

describe('product store (products kept in the columns)', () => {
  it('gives every product back exactly, after builds, appends, value patches, deletes, merges and snapshots', async () => {
    await fc.assert(fc.asyncProperty(productsOfArb(30), productsOfArb(8), fc.integer({ min: 0, max: 29 }), fc.double({ noNaN: true, noDefaultInfinity: true }), async (products, more, at, price) => {
      const catalog = new Catalog();
      await catalog.upsert(products);
      let model = products.slice();
      expectStored(catalog, model);
      // Appended (new refIds).
      const added = more.map((p, i) => ({ ...p, refId: `n${i}` }));
      await catalog.upsert(added);
      model = model.concat(added);
      expectStored(catalog, model);
      // A changed value of a known product (a value patch when the field is numeric, else a rebuild or re-append).
      if (model.length > 0) {
        const k = at % model.length;
        const changed = { ...model[k], price };
        await catalog.upsert([changed]);
        model[k] = changed;
        expectStored(catalog, model);
      }
      // Deletes (tombstones), then a merge.
      const gone = model.filter((_, i) => i % 3 === 1).map((p) => p.refId);
      await catalog.delete(gone);
      model = model.filter((p) => !gone.includes(p.refId));
      expectStored(catalog, model);
      const loaded = Catalog.fromState({}, decodeCatalogSnapshot(encodeCatalogSnapshot(catalog.state)).makeState);
      expectStored(loaded, model);
      await catalog.merge();
      expectStored(catalog, model);
      for (const p of model) expect(json(catalog.getProduct(p.refId))).toBe(json(p));
      // One value read alone, as re-ranking reads a field of many products.
      for (const p of model) {
        const d = catalog.state.docByRefId.get(p.refId)!;
        for (const k of Object.keys(p)) expect(json(catalog.state.store.valueOf(d, k))).toBe(json(p[k]));
        expect(catalog.state.store.valueOf(d, 'no such key')).toBeUndefined();
        for (const inherited of ['constructor', 'toString', 'hasOwnProperty']) {
          if (!Object.prototype.hasOwnProperty.call(p, inherited)) expect(catalog.state.store.valueOf(d, inherited)).toBeUndefined();
        }
      }
    }), { numRuns: 60 });
  });

  it('builds from the store\'s live products (a merge) exactly what a build from the decoded products gives', async () => {
    await fc.assert(fc.asyncProperty(productsOfArb(30), productsOfArb(8), fc.array(fc.nat(), { maxLength: 10 }), async (products, more, drops) => {
      const catalog = new Catalog({}, { mergeAt: () => Infinity });
      await catalog.upsert(products);
      await catalog.upsert(more.map((p, i) => ({ ...p, refId: `n${i}` })));
      // A changed product is re-appended (a place in `ordinal`) or the catalog rebuilt; then tombstones.
      if (products.length > 0) await catalog.upsert([{ ...products[0], title: 'changed' }]);
      // A new number: a value patch of the columns when the field is numeric (the text column's code too).
      if (products.length > 1) await catalog.upsert([{ ...products[1], price: 7.5 }]);
      const live = productsOf(liveProductList(catalog.state));
      await catalog.delete(drops.map((k) => live[k % Math.max(1, live.length)]?.refId).filter((r): r is string => r !== undefined));
      const { state } = catalog;
      const list = liveProductList(state);
      const revisions = Float64Array.from({ length: list.length }, (_, i) => list.revision(i));
      const options = { catalogId: 'c', version: 9 };
      const fromStore = runSteps(buildCatalogSteps(runSteps(liveBuildProducts(state)), options));
      const fromObjects = buildCatalogState(productsOf(list), { ...options, revisions });
      expectSameBuild(fromStore, fromObjects, (i) => revisions[i]);
    }), { numRuns: 80 });
  });

  it('rebuilds a version with a batch applied, reading its stored products from the store, as a build of the applied list', async () => {
    type Op = { kind: 'upsert'; products: Product[] } | { kind: 'delete'; refIds: string[] } | { kind: 'replace'; products: Product[] };
    const refId = fc.constantFrom('p0', 'p1', 'p2', 'p3', 'n0', 'n1');
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 4, arbitrary: fc.array(fc.tuple(refId, productsOfArb(1)), { minLength: 1, maxLength: 3 }).map((xs) => ({
        kind: 'upsert' as const, products: xs.flatMap(([r, ps]) => ps.slice(0, 1).map((p) => ({ ...p, refId: r }))),
      })) },
      { weight: 2, arbitrary: fc.array(refId, { maxLength: 3 }).map((refIds) => ({ kind: 'delete' as const, refIds })) },
      { weight: 1, arbitrary: productsOfArb(3).map((products) => ({ kind: 'replace' as const, products })) },
    );
    await fc.assert(fc.asyncProperty(productsOfArb(12), fc.array(fc.nat(), { maxLength: 4 }), fc.array(op, { minLength: 1, maxLength: 4 }), async (products, drops, ops) => {
      const catalog = new Catalog({}, { mergeAt: () => Infinity });
      await catalog.upsert(products.map((p, i) => ({ ...p, refId: `p${i}` })));
      await catalog.delete(drops.map((k) => `p${k % 12}`));
      const base = catalog.state;
      // The reference: the live products as a list, the batch applied to it as a list would take it.
      let list: Product[] = productsOf(liveProductList(base));
      const kept = new Map(list.map((p, i) => [p.refId, liveProductList(base).revision(i)]));
      for (const o of ops) {
        if (o.kind === 'replace') { list = []; kept.clear(); }
        if (o.kind === 'delete') {
          list = list.filter((p) => !o.refIds.includes(p.refId));
          continue;
        }
        for (const p of o.products) {
          kept.delete(p.refId);
          const at = list.findIndex((q) => q.refId === p.refId);
          if (at < 0) list.push(p); else list[at] = p;
        }
      }
      const applied = runSteps(changedProducts(base, ops));
      expect(applied.results.at(-1)?.catalogSize).toBe(list.length);
      const options = { catalogId: 'c', version: 9 };
      const fromStore = runSteps(buildCatalogSteps(applied.products, options));
      const fromObjects = buildCatalogState(list, options);
      // Products the batch left alone keep their revisions; the others have new ones.
      expectSameBuild(fromStore, fromObjects, (i) => kept.get(list[i].refId));
    }), { numRuns: 120 });
  });

  it('reads keys named like Object.prototype members as absent unless a product has them', async () => {
    // Before: a product without `constructor` gave the build Object.prototype.constructor, a present
    // non-number, so the field counted a stray per product and was text instead of numeric.
    const products: Product[] = [{ refId: 'a', constructor: 5, title: 'x' }, { refId: 'b', title: 'y' }, { refId: 'c', toString: 'red', title: 'z' }];
    const catalog = new Catalog();
    await catalog.upsert(products);
    const field = (name: string) => catalog.state.index.fields[catalog.state.fieldByName.get(name)!];
    expect(field('constructor')).toMatchObject({ kind: 'numeric', valueCounts: { numbers: 1, strays: 0 } });
    expect(field('toString').valueCounts).toEqual({ numbers: 0, strays: 1 });
    const b = catalog.state.docByRefId.get('b')!;
    expect(catalog.state.store.fieldReader('constructor')(b)).toBeUndefined();
    expect(catalog.state.store.numberReader('constructor')(b)).toBeUndefined();
    expect(catalog.state.store.numberReader('constructor')(catalog.state.docByRefId.get('a')!)).toBe(5);
    expect(catalog.state.store.keysOf(b)).toEqual(['refId', 'title']);
    await catalog.delete(['b']);
    await catalog.merge();
    expect(field('constructor')).toMatchObject({ kind: 'numeric', valueCounts: { numbers: 1, strays: 0 } });
    expect(productsOf(liveProductList(catalog.state)).map(json)).toEqual([products[0], products[2]].map(json));
  });

  it('keeps a product revision while it is unchanged and gives a changed one a new revision', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a', price: 1, title: 'x' }, { refId: 'b', price: 2, title: 'y' }]);
    const revisionOf = (refId: string): number => catalog.state.store.revision(catalog.state.docByRefId.get(refId)!);
    const a = revisionOf('a');
    const b = revisionOf('b');
    await catalog.upsert([{ refId: 'b', price: 3, title: 'y' }]); // value patch of b
    expect(revisionOf('a')).toBe(a);
    expect(revisionOf('b')).not.toBe(b);
    const b2 = revisionOf('b');
    await catalog.upsert([{ refId: 'c', price: 4, title: 'z' }]); // append
    await catalog.upsert([{ refId: 'a', price: 1, title: 'changed' }]); // re-appended (text changed)
    expect(revisionOf('b')).toBe(b2);
    expect(revisionOf('a')).not.toBe(a);
    const a2 = revisionOf('a');
    await catalog.delete(['c']);
    await catalog.merge();
    expect([revisionOf('a'), revisionOf('b')]).toEqual([a2, b2]);
  });

  it('gives a loaded snapshot\'s products new revisions (a decoded product is never taken for another)', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a', title: 'x' }, { refId: 'b', title: 'y' }]);
    const bytes = encodeCatalogSnapshot(catalog.state);
    const other = new Catalog();
    await other.upsert([{ refId: 'z', title: 'other' }]);
    const before = other.state.store.revision(0);
    const loaded = Catalog.fromState({}, decodeCatalogSnapshot(bytes).makeState);
    const revisions = [0, 1].map((d) => loaded.state.store.revision(d));
    expect(revisions.every((r) => r > before)).toBe(true);
    expect(revisions[0]).not.toBe(revisions[1]);
    expect(loaded.getProduct('a')).toEqual({ refId: 'a', title: 'x' });
    expect(other.getProduct('z')).toEqual({ refId: 'z', title: 'other' });
  });

  it('keeps generated products and float32 vectors in the columns (the side store only for repeated category names)', async () => {
    const products = generateCatalog({ count: 500, seed: 3 }).map((p, i): Product => ({ ...p, image_vector: [0.5, float32Value(Math.fround(i / 7)), -1.25] }));
    const catalog = new Catalog();
    await catalog.upsert(products);
    const repeating = products.filter((p) => Array.isArray(p.categories) && new Set(p.categories).size < p.categories.length);
    expect(repeating.length).toBeGreaterThan(0);
    // Their entries are the indexes of the repeated names ("[[0,1,1]]"), not the names.
    expect(catalog.state.store.rawStats).toEqual({ docs: repeating.length, bytes: expect.any(Number) });
    expect(catalog.state.store.rawStats.bytes).toBeLessThan(repeating.length * 16);
    expectStored(catalog, products);
  });

  it('reads a page of products together (key by key, runs of one column) as it reads each alone', async () => {
    const pageOf = fc.array(fc.nat(), { maxLength: 25 });
    await fc.assert(fc.asyncProperty(productsOfArb(40), productsOfArb(8), pageOf, async (products, more, picks) => {
      const catalog = new Catalog();
      await catalog.upsert(products);
      // Appended products: columns with tails, shapes interned later.
      const added = more.map((p, i) => ({ ...p, refId: `n${i}` }));
      await catalog.upsert(added);
      const model = products.concat(added);
      if (model.length === 0) return;
      const { store, docByRefId } = catalog.state;
      // Any docs, in any order, repeats included.
      const page = picks.map((x) => model[x % model.length]!);
      const docs = page.map((p) => docByRefId.get(p.refId)!);
      expect(store.decodeMany(docs).map(json)).toEqual(page.map(json));
      // The plain path, product by product.
      expect(store.decodeMany(docs).map(json)).toEqual(docs.map((d) => json(store.decode(d))));
      expect(store.getMany(Int32Array.from(docs)).map(json)).toEqual(page.map(json));
      expect(store.getMany(docs).map(json)).toEqual(page.map(json));
    }), { numRuns: 80 });
    // Generated products (the shapes searches read: text, numeric columns, categories, vectors, some raw).
    const generated = generateCatalog({ count: 400, seed: 5 });
    const catalog = new Catalog();
    await catalog.upsert(generated);
    for (let from = 0; from < generated.length; from += 37) {
      const docs = Array.from({ length: 20 }, (_, i) => (from + i * 53) % generated.length);
      expect(catalog.state.store.decodeMany(docs).map(json)).toEqual(docs.map((d) => json(generated[d])));
    }
  });

  it('reads a float32 vector component back as the shortest decimal giving that float32', () => {
    const shortest = (f: number): number => {
      for (let p = 1; p < 9; p++) if (Math.fround(Number(f.toPrecision(p))) === f) return Number(f.toPrecision(p));
      return Number(f.toPrecision(9));
    };
    fc.assert(fc.property(fc.float({ noNaN: true, noDefaultInfinity: true }), (x) => {
      const f = Math.fround(x);
      expect(Object.is(float32Value(f), shortest(f)) || (f === 0 && float32Value(f) === 0)).toBe(true);
    }), { numRuns: 20000 });
    // What feeds give (components printed with a few digits), and every float32 around powers of ten
    // and of two, where the arithmetic path's decimal exponent or its rounding is closest to changing.
    const bits = new Uint32Array(1);
    const asFloat = new Float32Array(bits.buffer);
    const around = (x: number): number[] => {
      asFloat[0] = x;
      const at = bits[0]!;
      return Array.from({ length: 2001 }, (_, k) => { bits[0] = at + k - 1000; return asFloat[0]!; });
    };
    const cases = [
      ...Array.from({ length: 20001 }, (_, k) => Math.fround((k - 10000) / 10000)),
      ...[1e-30, 1e-7, 0.001, 0.1, 0.5, 1, 10, 1e5, 1e6, 1e7, 3.4e38, 2 ** -126].flatMap(around),
    ];
    for (const x of cases) for (const f of [x, -x]) expect(Object.is(float32Value(f), shortest(f)) || (f === 0 && float32Value(f) === 0)).toBe(true);
    // The check without the value agrees with the value, for it and for numbers of the same float32
    // that are not it (a longer decimal, the double next to it, the other zero).
    for (const x of cases) {
      for (const f of [x, -x, 0, -0, Infinity, -Infinity]) {
        const w = float32Value(f);
        const others = [w, f, w * (1 + 2 ** -52), w === 0 ? -w : w, Number(f.toPrecision(12)), Number(f.toPrecision(17))];
        for (const v of others) expect(isFloat32Value(f, v)).toBe(Object.is(w, v));
      }
    }
  });
});
