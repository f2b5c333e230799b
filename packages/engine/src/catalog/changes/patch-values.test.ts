/**
 * The value-patch fast path against the full rebuild: after numeric-only upserts a patched catalog
 * must answer every request exactly as a catalog built from scratch with the same products.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isAisleError } from '../../errors.js';
import { executeSearch } from '../../search/execute-search.js';
import { SearchPool } from '../../search/search-pool.js';
import { catalogArb, requestArb } from '../../search/__tests__/random-catalog.js';
import type { Product, SearchRequest } from '../../types.js';
import { runSteps } from '../steps.js';
import type { CatalogState } from '../catalog-index.js';
import { Catalog } from '../catalog.js';
import { productsOf } from '../columns/product-store.js';
import { numericValue } from '../field-values.js';
import { mergeNumericOrder, mergeNumericOrderLinear } from './patch-values.js';
import { ensureNumericOrder } from '../columns/text-column-lookups.js';
import { docCodes, foldedInverted } from '../columns/text-column.js';
import { decodeCatalogSnapshot, encodeCatalogSnapshot } from '../durability/snapshot.js';
import { numericPerDoc, perDocValues } from '../columns/numeric-column.js';

const pool = new SearchPool({ workers: 2, threshold: 0 });
afterAll(() => pool.close());

const NUMERIC_FIELDS = ['price', 'rating', 'stock'] as const;
// Values the field has and new ones (each a new dictionary code, hence a new number in the column's table).
const newValueArb = fc.oneof(fc.integer({ min: -5, max: 60 }), fc.constantFrom(0, -0, 12.5, 99.99, 1e300, -1e21, 2.5e-7), fc.constantFrom('12.50', '8', '0.5', '2e1', ' -3 '));
const updateArb = fc.record({ at: fc.nat(), field: fc.constantFrom(...NUMERIC_FIELDS), value: newValueArb });

/** Same answer (payload or error code) from both catalogs. */
async function sameAnswer(patched: Catalog, rebuilt: Catalog, request: SearchRequest, onPool: boolean): Promise<void> {
  const run = (c: Catalog) => executeSearch(c, request, onPool ? { pool } : {}).then(
    (payload) => ({ payload }),
    (error: unknown) => ({ error: isAisleError(error) ? error.code : String(error) }),
  );
  const [a, b] = await Promise.all([run(patched), run(rebuilt)]);
  expect(a).toEqual(b);
}

/** Every column of every field, by value (codes differ between a patch and a rebuild; contents must not). */
function columnsByValue(state: CatalogState): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  state.index.fields.forEach((f, fid) => {
    const docsOf: Record<string, number[]> = {};
    const t = f.text;
    if (t) {
      for (let c = 0; c < t.dictSize; c++) {
        const { valueOffsets, valueDocs } = foldedInverted(t);
        const docs = Array.from(valueDocs.subarray(valueOffsets[c], valueOffsets[c + 1]));
        if (docs.length > 0) docsOf[state.dictionaries[fid].at(c)] = docs;
      }
    }
    const perDoc = t ? Array.from({ length: state.index.docCount }, (_, d) => docCodes(t, d).map((c) => state.dictionaries[fid].at(c))) : undefined;
    const single = t?.single ? Array.from(t.single, (c) => (c < 0 ? null : state.dictionaries[fid].at(c))) : undefined;
    if (f.numeric) ensureNumericOrder(state, fid);
    out[f.name] = { kind: f.kind, docsOf, perDoc, single, numeric: f.numeric && Array.from(numericPerDoc(f, state.index.docCount)), order: f.order && Array.from(f.order) };
  });
  return out;
}

const warmUp: SearchRequest[] = [
  // Derives numeric orders and text sort ranks on the base version, so patches merge them.
  { website_id: 'w', client: 'c', q: '', start: 0, size: 5, range_fields: ['price', 'rating', 'stock'], sort_fields: [{ price: { order: 'asc', type: 'number' } }] },
  { website_id: 'w', client: 'c', q: '', start: 0, size: 5, sort_fields: [{ stock: { order: 'desc', type: 'text' } }, { rating: { order: 'asc', type: 'number' } }] },
  { website_id: 'w', client: 'c', q: '', start: 0, size: 5, scope: { price: ['7'] } as never, aggregations: ['price', 'stock'] },
  // Builds value lookups on the base, which a patch carries over for the fields it does not touch.
  { website_id: 'w', client: 'c', q: '', start: 0, size: 5, scope: { brand: ['Acme', 'β'], tags: ['eco'], color: ['Red', '2'] } as never },
];

describe('value patches (numeric-only upserts)', () => {
  it('answer exactly as a rebuilt catalog, inline and on the pool', async () => {
    await fc.assert(fc.asyncProperty(
      catalogArb(80), fc.array(updateArb, { minLength: 1, maxLength: 30 }), fc.array(requestArb, { minLength: 4, maxLength: 4 }), fc.boolean(), fc.constantFrom(0, 1e9),
      async (products, updates, requests, warm, patchLinearRatio) => {
        // Ratio 0: every field patched by edits (binary searches, per-code lists); 1e9: by linear passes.
        const patched = new Catalog({}, { patchLinearRatio });
        await patched.upsert(products);
        if (warm) for (const r of warmUp) await executeSearch(patched, r).catch(() => undefined);
        const before = patched.state;
        const changed = new Map<number, Product>();
        for (const u of updates) {
          if (products.length === 0) break;
          const at = u.at % products.length;
          const current = changed.get(at) ?? products[at];
          // Only values that are numeric already: a patch never adds a field.
          if (!(u.field in current) || Number.isNaN(numericValue(current[u.field]))) continue;
          changed.set(at, { ...current, [u.field]: u.value });
        }
        if (changed.size === 0) return;
        await patched.upsert([...changed.values()]);
        // The fast path was taken: the full-text index is shared with the previous version.
        expect(patched.state.index.fullText).toBe(before.index.fullText);
        expect(patched.version).toBe(before.index.version + 1);
        const final = products.map((p, i) => changed.get(i) ?? p);
        const rebuilt = new Catalog();
        await rebuilt.upsert(final);
        expect(productsOf(patched.state.store)).toEqual(final);
        expect(columnsByValue(patched.state)).toEqual(columnsByValue(rebuilt.state));
        for (const request of [...warmUp, ...requests]) {
          await sameAnswer(patched, rebuilt, request, false);
          await sameAnswer(patched, rebuilt, request, true);
        }
      },
    ), { numRuns: 120 });
  });

  it('leaves the previous version untouched (searches running on it see the old values)', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a', title: 'red shoe', price: 10 }, { refId: 'b', title: 'blue shoe', price: 20 }]);
    await executeSearch(catalog, { website_id: 'w', client: 'c', q: '', start: 0, range_fields: ['price'] });
    const old = catalog.state;
    const oldPrices = Array.from(numericPerDoc(old.index.fields[old.fieldByName.get('price')!], 2));
    await catalog.upsert([{ refId: 'a', title: 'red shoe', price: 30 }]);
    expect(Array.from(numericPerDoc(old.index.fields[old.fieldByName.get('price')!], 2))).toEqual(oldPrices);
    expect(old.store.get(0).price).toBe(10);
    const payload = await executeSearch(catalog, { website_id: 'w', client: 'c', q: 'shoe', start: 0, range_fields: ['price'], sort_fields: [{ price: { order: 'desc', type: 'number' } }] });
    expect(payload.result.map((p) => p.refId)).toEqual(['a', 'b']);
    expect(payload.ranges).toEqual({ price: { min: 20, max: 30 } });
  });

  it('round-trips through a snapshot (dead dictionary values included)', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a', title: 'red shoe', price: 10 }, { refId: 'b', title: 'blue shoe', price: 20 }, { refId: 'c', title: 'shoe', price: 30 }]);
    for (const price of [11, 12, 13]) await catalog.upsert([{ refId: 'a', title: 'red shoe', price }]);
    const loaded = Catalog.fromState({}, decodeCatalogSnapshot(encodeCatalogSnapshot(catalog.state)).makeState);
    for (const request of warmUp) await sameAnswer(loaded, catalog, request, false);
  });

  it('rebuilds when anything but a numeric value changes, or a product is new', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a', title: 'red shoe', price: 10, brand: 'Acme' }, { refId: 'b', title: 'blue shoe', price: 20, brand: 'Zeta' }]);
    const cases: Product[][] = [
      [{ refId: 'a', title: 'green shoe', price: 10, brand: 'Acme' }],
      [{ refId: 'a', title: 'green shoe', price: 11, brand: 'Beta' }],
      [{ refId: 'a', title: 'green shoe', price: 'n/a', brand: 'Beta' }],
      [{ refId: 'a', title: 'green shoe', brand: 'Beta' }],
      [{ refId: 'a', title: 'green shoe', price: 12, brand: 'Beta', extra: 1 }],
      [{ refId: 'c', title: 'new shoe', price: 5 }],
    ];
    for (const batch of cases) {
      const before = catalog.state.index.fullText;
      await catalog.upsert(batch);
      expect(catalog.state.index.fullText).not.toBe(before);
    }
    const rebuilt = new Catalog();
    await rebuilt.upsert(productsOf(catalog.state.store));
    for (const request of warmUp) await sameAnswer(catalog, rebuilt, request, false);
    // A price given as text spells a number: still a numeric value, so still a patch.
    const before = catalog.state.index.fullText;
    await catalog.upsert([{ refId: 'c', title: 'new shoe', price: '5.50' }]);
    expect(catalog.state.index.fullText).toBe(before);
  });

  it('bounds the dead values a patched dictionary collects (a rebuild compacts it)', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a', price: 0 }, { refId: 'b', price: 1 }]);
    const fid = catalog.state.fieldByName.get('price')!;
    let rebuilds = 0;
    for (let i = 2; i < 6000; i++) {
      const before = catalog.state.index.fullText;
      await catalog.upsert([{ refId: 'a', price: i }]);
      if (catalog.state.index.fullText !== before) rebuilds++;
      expect(catalog.state.dictionaries[fid].size).toBeLessThanOrEqual(2 * 2 + 4096 + 1);
    }
    expect(rebuilds).toBe(1);
    const payload = await executeSearch(catalog, { website_id: 'w', client: 'c', q: '', start: 0, aggregations: ['price'] });
    expect(payload.aggregations).toEqual({ price: [{ key: '1', doc_count: 1 }, { key: '5999', doc_count: 1 }] });
  });
});

describe('mergeNumericOrder and mergeNumericOrderLinear', () => {
  it('equals a full sort of the docs by (value, doc)', () => {
    fc.assert(fc.property(
      fc.array(fc.oneof(fc.integer({ min: 0, max: 9 }), fc.constant(Number.NaN)), { maxLength: 60 }),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 9 })), { maxLength: 20 }),
      (initial, changes) => {
        const values = Float64Array.from(initial);
        const sorted = (v: Float64Array) => Uint32Array.from([...v.keys()].filter((d) => !Number.isNaN(v[d])).sort((a, b) => v[a] - v[b] || a - b));
        const order = sorted(values);
        const next = values.slice();
        const docs = new Set<number>();
        for (const [at, value] of changes) {
          if (values.length === 0 || Number.isNaN(values[at % values.length])) continue;
          next[at % values.length] = value;
          docs.add(at % values.length);
        }
        const changed = Int32Array.from([...docs].sort((a, b) => a - b));
        expect(Array.from(mergeNumericOrder(order, perDocValues(values), perDocValues(next), changed))).toEqual(Array.from(sorted(next)));
        expect(Array.from(runSteps(mergeNumericOrderLinear(order, perDocValues(next), changed)))).toEqual(Array.from(sorted(next)));
      },
    ), { numRuns: 300 });
  });
});
