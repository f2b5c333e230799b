/**
 * Tombstoned deletes and background merges against a catalog built in one go: after a random sequence
 * of upserts (value patches, appends, changed texts), merge patches, deletes and merges, the catalog
 * holds the products a plain list model says, and answers every request (payload or error) exactly as
 * a catalog built in one go from those products — inline and on the worker pool.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isAisleError } from '../../errors.js';
import { executeSearch } from '../../search/execute-search.js';
import { SearchPool } from '../../search/search-pool.js';
import { catalogArb, freshFieldsArb, freshRequestArb, requestArb, WORDS } from '../../search/__tests__/random-catalog.js';
import type { Product, SearchRequest } from '../../types.js';
import { Catalog } from '../catalog.js';
import { decodeCatalogSnapshot, encodeCatalogSnapshot } from '../durability/snapshot.js';
import { liveProductList } from './tombstones.js';
import { runSteps, STEP } from '../steps.js';
import { productsOf } from '../columns/product-store.js';

const pool = new SearchPool({ workers: 2, threshold: 0 });
afterAll(() => pool.close());

async function answer(catalog: Catalog, request: SearchRequest, onPool: boolean): Promise<unknown> {
  return executeSearch(catalog, request, onPool ? { pool } : {}).then(
    (payload) => ({ payload }),
    (error: unknown) => ({ error: isAisleError(error) ? error.code : String(error) }),
  );
}

/**
 * One change of the sequence; `pick` chooses among the products the model has at that moment. `fresh`:
 * fields no generated product has, which the change gives the product(s) (a field the catalog lacks,
 * or has since an earlier change).
 */
type Op =
  | { kind: 'price'; pick: number; price: number }
  | { kind: 'title'; pick: number; words: string[]; fresh?: Record<string, unknown> }
  | { kind: 'new'; products: Product[]; fresh?: Record<string, unknown> }
  | { kind: 'patch'; pick: number; brand: string | null; fresh?: { fresh_text?: string; fresh_num?: number } }
  | { kind: 'delete'; picks: number[]; unknown: boolean }
  | { kind: 'merge' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('price' as const), pick: fc.nat(), price: fc.integer({ min: -5, max: 60 }) }),
  fc.record({ kind: fc.constant('title' as const), pick: fc.nat(), words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }), fresh: fc.option(freshFieldsArb, { nil: undefined }) }),
  fc.record({ kind: fc.constant('new' as const), products: catalogArb(4), fresh: fc.option(freshFieldsArb, { nil: undefined }) }),
  fc.record({
    kind: fc.constant('patch' as const), pick: fc.nat(), brand: fc.constantFrom('Acme', 'Zeta', 'Omega', null),
    fresh: fc.option(fc.record({ fresh_text: fc.constantFrom(...WORDS), fresh_num: fc.integer({ min: 0, max: 9 }) }, { requiredKeys: [] }), { nil: undefined }),
  }),
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), picks: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), unknown: fc.boolean() }) },
  fc.record({ kind: fc.constant('merge' as const) }),
);

/** Applies `op` to the catalog and to the model (the product list a one-go build is given). */
async function apply(catalog: Catalog, model: Product[], op: Op, fresh: { n: number }): Promise<void> {
  const at = (pick: number) => (model.length === 0 ? undefined : pick % model.length);
  if (op.kind === 'merge') { await catalog.merge(); return; }
  if (op.kind === 'new') {
    // The fields no product had go to the first new product only (the others keep theirs).
    const products = op.products.map((p, i) => ({ ...p, ...(i === 0 ? op.fresh : undefined), refId: `n${fresh.n++}` }));
    if (products.length === 0) return;
    await catalog.upsert(products);
    model.push(...products);
    return;
  }
  if (op.kind === 'delete') {
    const refIds = [...new Set(op.picks.map((p) => at(p)).filter((i) => i !== undefined).map((i) => model[i!].refId))];
    await catalog.delete(op.unknown ? [...refIds, 'missing'] : refIds);
    for (const r of refIds) model.splice(model.findIndex((p) => p.refId === r), 1);
    return;
  }
  const i = at(op.pick);
  if (i === undefined) return;
  if (op.kind === 'patch') {
    await catalog.patch([{ refId: model[i].refId, brand: op.brand, ...op.fresh }]);
    const next: Product = { ...model[i], brand: op.brand, ...op.fresh };
    if (op.brand === null) delete next.brand;
    model[i] = next;
    return;
  }
  const next: Product = op.kind === 'price' ? { ...model[i], price: op.price } : { ...model[i], ...op.fresh, title: op.words.join(' ') };
  await catalog.upsert([next]);
  model[i] = next;
}

describe('tombstoned deletes and merges', () => {
  it('answer exactly as a catalog built in one go, inline and on the pool', async () => {
    let tombstoned = 0;
    let reappended = 0;
    let fieldsAdded = 0;
    let tailed = 0;
    await fc.assert(fc.asyncProperty(
      catalogArb(60), fc.array(opArb, { minLength: 1, maxLength: 8 }), fc.array(requestArb, { minLength: 4, maxLength: 4 }),
      fc.array(freshRequestArb, { minLength: 2, maxLength: 2 }),
      async (products, ops, generatedRequests, freshRequests) => {
        const requests = [...generatedRequests, ...freshRequests];
        const catalog = new Catalog();
        await catalog.upsert(products);
        const model = products.slice();
        const fresh = { n: 0 };
        // A scope on refId reads refId → doc (the refId dictionary's table, shared by later versions).
        const byRefId = (refIds: string[]): SearchRequest => ({ website_id: 'w', client: 'c', q: '', start: 0, size: 10, scope: { refId: refIds } });
        await answer(catalog, byRefId(products.slice(0, 3).map((p) => p.refId)), false);
        for (const op of ops) {
          const before = catalog.state;
          await apply(catalog, model, op, fresh);
          // A field added without a rebuild (which leaves no tombstone and no re-appended doc).
          const { state } = catalog;
          if (state.index.fields.length > before.index.fields.length && (state.tombstones || state.index.ordinal)) fieldsAdded++;
          if (catalog.state.tombstones) tombstoned++;
          if (catalog.state.index.ordinal) reappended++;
          if (catalog.state.index.fields.some((f) => f.text?.valueTail)) tailed++;
        }
        expect(productsOf(liveProductList(catalog.state))).toEqual(model);
        expect(productsOf(runSteps(catalog.liveProductsSteps()))).toEqual(model);
        expect(catalog.liveCount).toBe(model.length);
        const oneGo = new Catalog();
        await oneGo.upsert(model);
        // Refids of live, deleted and re-appended products alike.
        const someRefIds = [...products.slice(0, 4), ...model.slice(-3)].map((p) => p.refId);
        for (const [i, request] of [...requests, byRefId(someRefIds)].entries()) {
          expect(await answer(catalog, request, i % 2 === 1)).toEqual(await answer(oneGo, request, false));
        }
      },
    ), { numRuns: 120 });
    // The sequences did leave tombstones to search around (not only merged or rebuilt catalogs).
    expect(tombstoned).toBeGreaterThan(20);
    // Changed texts took the tombstone + append path (products keeping their place), not only rebuilds.
    expect(reappended).toBeGreaterThan(10);
    // New fields took the append path (new products, changed products, merge patches), not only rebuilds.
    expect(fieldsAdded).toBeGreaterThan(10);
    // Appended docs took values older docs had: inverted columns with a tail were searched.
    expect(tailed).toBeGreaterThan(10);
  });

  it('deletes without a rebuild: the columns are shared with the previous version', async () => {
    const catalog = new Catalog();
    await catalog.upsert(Array.from({ length: 50 }, (_, i) => ({ refId: `p${i}`, title: `shirt ${i % 3 === 0 ? 'blue' : 'red'}`, price: i })));
    const before = catalog.state;
    await catalog.delete(['p3', 'p4']);
    const after = catalog.state;
    expect(after.index.fields).toBe(before.index.fields);
    expect(after.index.fullText).toBe(before.index.fullText);
    expect(after.tombstones?.count).toBe(2);
    expect(catalog.has('p3')).toBe(false);
    expect(catalog.getProduct('p5')).toEqual({ refId: 'p5', title: 'shirt red', price: 5 });
    const seen: string[] = [];
    catalog.forEachProduct((p) => seen.push(p.refId));
    expect(seen).toHaveLength(48);
    await catalog.merge();
    expect(catalog.state.tombstones).toBeUndefined();
    expect(catalog.state.index.docCount).toBe(48);
  });

  it('lists the live products in steps, the version captured when asked (a background build runs the pass in its slices)', async () => {
    const catalog = new Catalog({}, { syncLimit: 0, sliceMs: 0 });
    const count = 3 * STEP;
    await catalog.upsert(Array.from({ length: count }, (_, i) => ({ refId: `p${i}`, title: `shoe ${i}` })));
    await catalog.delete(['p0', 'p5']);
    const listing = catalog.liveProductsSteps();
    // A change after the call is not in the list.
    await catalog.delete(['p7']);
    let steps = 0;
    for (let next = listing.next(); ; next = listing.next(), steps++) {
      if (next.done) {
        expect(next.value.length).toBe(count - 2);
        expect(next.value.get(5).refId).toBe('p7');
        break;
      }
    }
    expect(steps).toBeGreaterThanOrEqual(2);
  });

  it('applies the changes made during a merge to the merged version', async () => {
    const catalog = new Catalog({}, { syncLimit: 0, sliceMs: 0 });
    const products = Array.from({ length: 300 }, (_, i) => ({ refId: `p${i}`, title: `shoe ${WORDS[i % WORDS.length]}`, price: i % 17 }));
    await catalog.upsert(products);
    await catalog.delete(['p1', 'p2']);
    const merged = catalog.merge();
    // Queued while the merge builds: a delete, a price change and a new product.
    const during = [catalog.delete(['p10']), catalog.upsert([{ ...products[20], price: 99 }]), catalog.upsert([{ refId: 'new', title: 'red shoe' }])];
    await Promise.all([merged, ...during]);
    const model: Product[] = products.filter((p) => !['p1', 'p2', 'p10'].includes(p.refId)).map((p) => (p.refId === 'p20' ? { ...p, price: 99 } : p));
    model.push({ refId: 'new', title: 'red shoe' });
    expect(productsOf(liveProductList(catalog.state))).toEqual(model);
    const oneGo = new Catalog();
    await oneGo.upsert(model);
    const request: SearchRequest = { website_id: 'w', client: 'c', q: 'shoe', start: 0, size: 30, aggregations: ['price'], range_fields: ['price'] };
    expect(await answer(catalog, request, true)).toEqual(await answer(oneGo, request, false));
  });

  it('round-trips through a snapshot with its tombstones', async () => {
    await fc.assert(fc.asyncProperty(catalogArb(50), fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), fc.array(requestArb, { minLength: 3, maxLength: 3 }),
      async (generated, picks, requests) => {
        // As JSON, which is how the snapshot stores products (-0 reads back as 0).
        const products = JSON.parse(JSON.stringify(generated)) as Product[];
        if (products.length === 0) return;
        const catalog = new Catalog();
        await catalog.upsert(products);
        await catalog.delete(picks.map((p) => products[p % products.length].refId));
        const loaded = Catalog.fromState({}, decodeCatalogSnapshot(encodeCatalogSnapshot(catalog.state)).makeState);
        expect(productsOf(liveProductList(loaded.state))).toEqual(productsOf(liveProductList(catalog.state)));
        for (const request of requests) expect(await answer(loaded, request, false)).toEqual(await answer(catalog, request, false));
      }), { numRuns: 40 });
  });
  it('a snapshot of a catalog with a replaced product keeps the new version under its refId', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a', title: 'red shirt' }, { refId: 'b', title: 'blue shirt' }, { refId: 'c', title: 'green hat' }]);
    await catalog.upsert([{ refId: 'b', title: 'blue scarf' }]);
    await catalog.delete(['c']);
    expect(catalog.state.index.ordinal).toBeDefined();
    const loaded = Catalog.fromState({}, decodeCatalogSnapshot(encodeCatalogSnapshot(catalog.state)).makeState);
    expect(loaded.getProduct('b')).toEqual({ refId: 'b', title: 'blue scarf' });
    expect(loaded.getProduct('c')).toBeUndefined();
    expect(productsOf(liveProductList(loaded.state))).toEqual(productsOf(liveProductList(catalog.state)));
    expect(loaded.liveCount).toBe(2);
  });
});
