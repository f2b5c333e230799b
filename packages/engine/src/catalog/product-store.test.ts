import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateCatalog } from '../demo/generate-catalog.js';
import type { Product } from '../types.js';
import { Catalog } from './catalog.js';
import { float32Value } from './product-store.js';
import { decodeCatalogSnapshot, encodeCatalogSnapshot } from './snapshot.js';
import { liveProductList } from './tombstones.js';

/** Field names: a few shared ones (columns with several kinds of values), odd ones, an index-like one. */
const key = fc.constantFrom('title', 'price', 'tags', 'size', 'attrs', 'flag', 'image_vector', '10', 'é', '__proto__', 'stock');
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
const body = fc.array(fc.tuple(key, value), { maxLength: 6 });

function productsOfArb(max: number): fc.Arbitrary<Product[]> {
  return fc.array(body, { maxLength: max }).map((bodies) => bodies.map((entries, i) => {
    const p: Record<string, unknown> = {};
    // Keys in the order drawn (JSON.parse keeps an own __proto__ key: define it, as a feed would have it).
    for (const [k, v] of entries) Object.defineProperty(p, k, { value: v, enumerable: true, writable: true, configurable: true });
    return { refId: `p${i}`, ...p } as Product;
  }));
}

const json = (p: unknown): string => JSON.stringify(p);

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
    }), { numRuns: 60 });
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

  it('keeps generated products and float32 vectors in the columns (the side store only for repeated category names)', async () => {
    const products = generateCatalog({ count: 500, seed: 3 }).map((p, i) => ({ ...p, image_vector: [0.5, float32Value(Math.fround(i / 7)), -1.25] }));
    const catalog = new Catalog();
    await catalog.upsert(products);
    const repeating = products.filter((p) => Array.isArray(p.categories) && new Set(p.categories).size < p.categories.length);
    expect(repeating.length).toBeGreaterThan(0);
    // Their entries are the indexes of the repeated names ("[[0,1,1]]"), not the names.
    expect(catalog.state.store.rawStats).toEqual({ docs: repeating.length, bytes: expect.any(Number) });
    expect(catalog.state.store.rawStats.bytes).toBeLessThan(repeating.length * 16);
    expectStored(catalog, products);
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
  });
});
