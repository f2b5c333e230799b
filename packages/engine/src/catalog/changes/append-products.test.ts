/**
 * The append fast path against the full rebuild: a catalog grown by appends must be the version a
 * rebuild of the same products makes — every column, dictionary, posting and normalised frequency —
 * and answer every request alike.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isAisleError } from '../../errors.js';
import { executeSearch } from '../../search/execute-search.js';
import { SearchPool } from '../../search/search-pool.js';
import { catalogArb, freshFieldsArb, freshRequestArb, requestArb } from '../../search/__tests__/random-catalog.js';
import type { Product, SearchRequest } from '../../types.js';
import { appendProducts, planAppend } from './append-products.js';
import { MAX_FIELD_LENGTH } from '../full-text/length-norms.js';
import { runSteps, STEP, type Steps } from '../steps.js';
import { lengthAt } from '../full-text/field-lengths.js';
import { decodeCatalogSnapshot, encodeCatalogSnapshot } from '../durability/snapshot.js';
import { Catalog } from '../catalog.js';
import { contents } from '../__tests__/version-contents.js';
import { productsOf } from '../columns/product-store.js';
import { ensureNumericOrder } from '../columns/text-column-lookups.js';

const pool = new SearchPool({ workers: 2, threshold: 0 });
afterAll(() => pool.close());

/** A catalog of `base` with `added` taking the append path (checked), and one built from both in one go. */
async function appendedAndRebuilt(base: Product[], added: Product[]): Promise<{ catalog: Catalog; rebuilt: Catalog }> {
  const catalog = new Catalog();
  await catalog.upsert(base);
  expect(runSteps(planAppend(catalog.state, [added]))).toHaveLength(added.length);
  await catalog.upsert(added);
  const rebuilt = new Catalog();
  await rebuilt.upsert([...base, ...added]);
  return { catalog, rebuilt };
}

async function sameAnswer(a: Catalog, b: Catalog, request: SearchRequest, onPool: boolean): Promise<void> {
  const run = (c: Catalog) => executeSearch(c, request, onPool ? { pool } : {}).then(
    (payload) => ({ payload }),
    (error: unknown) => ({ error: isAisleError(error) ? error.code : String(error) }),
  );
  expect(await run(a)).toEqual(await run(b));
}

/** Per numeric field, its order (derived when it is not), by name. */
function numericOrders(catalog: Catalog): Record<string, number[] | undefined> {
  const state = catalog.state;
  const out: Record<string, number[] | undefined> = {};
  state.index.fields.forEach((f, fid) => {
    if (!f.numeric) return;
    ensureNumericOrder(state, fid);
    out[f.name] = f.order && Array.from(f.order);
  });
  return out;
}

const withVectors = (products: Product[], dims: number[]): Product[] =>
  products.map((p, i) => (dims[i % dims.length] > 0 ? { ...p, image_vector: Array.from({ length: dims[i % dims.length] }, (_, d) => ((i * 7 + d) % 5) / 5) } : p));

describe('appending new products', () => {
  it('makes exactly the version a rebuild makes, and the same answers', async () => {
    let appended = 0;
    let withNewFields = 0;
    let runs = 0;
    await fc.assert(fc.asyncProperty(
      catalogArb(60), fc.double({ min: 0.3, max: 0.95, noNaN: true }), fc.integer({ min: 1, max: 3 }), fc.array(fc.constantFrom(0, 0, 3), { minLength: 1, maxLength: 4 }),
      fc.array(fc.option(freshFieldsArb, { freq: 2 }), { maxLength: 8 }),
      fc.array(requestArb, { minLength: 3, maxLength: 3 }), fc.array(freshRequestArb, { minLength: 2, maxLength: 2 }),
      async (generated, split, batches, dims, fresh, requests, freshRequests) => {
        const at = Math.max(1, Math.floor(generated.length * split));
        if (generated.length < 2 || at >= generated.length) return;
        // Some appended products bring fields no product had (vectors too, when the base has none).
        const products = withVectors(generated, dims).map((p, i) => (i >= at && fresh[i % Math.max(1, fresh.length)] ? { ...p, ...fresh[i % fresh.length]! } : p));
        runs++;
        const grownCatalog = new Catalog();
        await grownCatalog.upsert(products.slice(0, at));
        // Derived orders exist on the base, so the append merges them.
        await executeSearch(grownCatalog, { website_id: 'w', client: 'c', q: '', start: 0, range_fields: ['price', 'rating', 'stock'] }).catch(() => undefined);
        const rest = products.slice(at);
        const parts = Array.from({ length: batches }, (_, b) => rest.slice(Math.floor((b * rest.length) / batches), Math.floor(((b + 1) * rest.length) / batches)));
        if (runSteps(planAppend(grownCatalog.state, parts))) {
          appended++;
          if (rest.some((p) => Object.keys(p).some((key) => !grownCatalog.state.fieldByName.has(key)))) withNewFields++;
        }
        await Promise.all(parts.map((part) => grownCatalog.upsert(part)));
        const rebuilt = new Catalog();
        await rebuilt.upsert(products);
        expect(contents(grownCatalog.state)).toEqual(contents(rebuilt.state));
        for (const request of [...requests, ...freshRequests]) {
          await sameAnswer(grownCatalog, rebuilt, request, false);
          await sameAnswer(grownCatalog, rebuilt, request, true);
        }
      },
    ), { numRuns: 150 });
    // The fast path is what is being tested: it must have been taken often, with new fields too.
    expect(appended).toBeGreaterThan(runs / 4);
    expect(withNewFields).toBeGreaterThan(runs / 8);
  });

  it('patches and appends in one batch (price updates of known products + new products) as a rebuild answers', async () => {
    let mixed = 0;
    let runs = 0;
    await fc.assert(fc.asyncProperty(
      catalogArb(60), fc.double({ min: 0.3, max: 0.9, noNaN: true }), fc.array(fc.tuple(fc.nat(), fc.integer({ min: -5, max: 80 })), { minLength: 1, maxLength: 8 }),
      fc.array(requestArb, { minLength: 3, maxLength: 3 }),
      async (products, split, updates, requests) => {
        const at = Math.max(1, Math.floor(products.length * split));
        if (products.length < 2 || at >= products.length) return;
        runs++;
        const catalog = new Catalog();
        await catalog.upsert(products.slice(0, at));
        await executeSearch(catalog, { website_id: 'w', client: 'c', q: '', start: 0, range_fields: ['price'], sort_fields: [{ price: { order: 'asc', type: 'number' } }] }).catch(() => undefined);
        const final = products.slice();
        const changed: Product[] = [];
        for (const [i, price] of updates) {
          const k = i % at;
          if (typeof final[k].price !== 'number') continue;
          final[k] = { ...final[k], price };
          changed.push(final[k]);
        }
        // Both fast paths apply when the new products fit (the price updates always do).
        if (changed.length > 0 && runSteps(planAppend(catalog.state, [products.slice(at)]))) mixed++;
        await catalog.upsert([...changed, ...products.slice(at)]);
        const rebuilt = new Catalog();
        await rebuilt.upsert(final);
        expect(productsOf(catalog.state.store)).toEqual(productsOf(rebuilt.state.store));
        for (const request of requests) {
          await sameAnswer(catalog, rebuilt, request, false);
          await sameAnswer(catalog, rebuilt, request, true);
        }
        await sameAnswer(catalog, rebuilt, { website_id: 'w', client: 'c', q: '', start: 0, size: 100, aggregations: ['price'], range_fields: ['price'], sort_fields: [{ price: { order: 'desc', type: 'number' } }] }, false);
      },
    ), { numRuns: 120 });
    expect(mixed).toBeGreaterThan(runs / 5);
  });

  it('merges the orders an append defers before a later price patch, as a rebuild answers', async () => {
    let deferred = 0;
    await fc.assert(fc.asyncProperty(
      catalogArb(60), fc.double({ min: 0.3, max: 0.9, noNaN: true }), fc.array(fc.tuple(fc.nat(), fc.integer({ min: -5, max: 80 })), { minLength: 1, maxLength: 8 }),
      async (products, split, updates) => {
        const at = Math.max(1, Math.floor(products.length * split));
        if (products.length < 2 || at >= products.length) return;
        const catalog = new Catalog();
        await catalog.upsert(products.slice(0, at));
        // The base derives its price order; the append (when it takes the fast path) leaves it to merge later.
        await executeSearch(catalog, { website_id: 'w', client: 'c', q: '', start: 0, range_fields: ['price'], sort_fields: [{ price: { order: 'asc', type: 'number' } }] }).catch(() => undefined);
        await catalog.upsert(products.slice(at));
        if (catalog.state.index.fields.some((f) => f.orderBase)) deferred++;
        // Price patches of old and appended products, on the version whose order is deferred.
        const final = products.slice();
        const changed = new Map<string, Product>();
        for (const [i, price] of updates) {
          const k = i % products.length;
          if (typeof final[k].price !== 'number') continue;
          final[k] = { ...final[k], price };
          changed.set(final[k].refId, final[k]);
        }
        if (changed.size > 0) await catalog.upsert([...changed.values()]);
        const rebuilt = new Catalog();
        await rebuilt.upsert(final);
        // Orders, not every structure: a patched dictionary keeps its dead values, a rebuild's has none.
        expect(numericOrders(catalog)).toEqual(numericOrders(rebuilt));
        await sameAnswer(catalog, rebuilt, { website_id: 'w', client: 'c', q: '', start: 0, size: 100, aggregations: ['price'], range_fields: ['price'], sort_fields: [{ price: { order: 'desc', type: 'number' } }] }, false);
      },
    ), { numRuns: 100 });
    expect(deferred).toBeGreaterThan(10);
  });

  it('keeps value lookups right over many appends in a row (stacked, then flattened)', async () => {
    const catalog = new Catalog();
    const all: Product[] = [{ refId: 'p0', title: 'mug zero', brand: 'B0' }, { refId: 'p1', title: 'mug one', brand: 'B1' }];
    await catalog.upsert(all);
    for (let i = 2; i < 20; i++) {
      const product = { refId: `p${i}`, title: `mug ${i}`, brand: `B${i % 7}` };
      all.push(product);
      await catalog.upsert([product]);
      const rebuilt = new Catalog();
      await rebuilt.upsert(all);
      const request: SearchRequest = { website_id: 'w', client: 'c', q: 'mug', start: 0, size: 50, scope: { brand: ['B3', `B${i % 7}`], refId: [`p${i}`, 'p3', 'p10'] }, aggregations: ['brand'] };
      await sameAnswer(catalog, rebuilt, request, false);
      expect((await executeSearch(catalog, request)).total_results).toBeGreaterThan(0);
    }
  });

  it('turns a single-valued column multi-valued when a new product has several values, as a rebuild does', async () => {
    const base: Product[] = [
      { refId: 'a', title: 'red shoe', tags: 'sale', colour: 'red' },
      { refId: 'b', title: 'blue shoe', colour: 'blue' },
      { refId: 'c', title: 'green shoe', tags: ['new'], colour: 'green' },
    ];
    const added: Product[] = [{ refId: 'd', title: 'grey shoe', tags: ['sale', 'outlet', 'sale'] }, { refId: 'e', title: 'shoe', tags: 'new' }];
    const catalog = new Catalog();
    await catalog.upsert(base);
    const tags = () => catalog.state.index.fields[catalog.state.fieldByName.get('tags')!].text!;
    expect(tags().single).toBeInstanceOf(Int8Array);
    expect(runSteps(planAppend(catalog.state, [added]))).toHaveLength(2);
    await catalog.upsert(added);
    expect(tags().single).toBeUndefined();
    expect(Array.from(tags().offsets!)).toEqual([0, 1, 1, 2, 4, 5]);
    const rebuilt = new Catalog();
    await rebuilt.upsert([...base, ...added]);
    expect(contents(catalog.state)).toEqual(contents(rebuilt.state));
    const request: SearchRequest = { website_id: 'w', client: 'c', q: 'shoe', start: 0, size: 10, scope: { tags: ['outlet', 'new'] }, aggregations: ['tags', 'colour'] };
    await sameAnswer(catalog, rebuilt, request, false);
    await sameAnswer(catalog, rebuilt, request, true);
  });

  it('reads keys named like Object.prototype members as absent in appended products that lack them, as a rebuild does', async () => {
    // Before: an appended product without `constructor` gave the append Object.prototype.constructor, a
    // present non-number: a stray counted per product, so the field's counts (and, over time, its kind)
    // drifted from a rebuild's.
    const base: Product[] = Array.from({ length: 5 }, (_, i) => ({ refId: `a${i}`, title: 'mug', constructor: i, toString: 'red' }));
    const added: Product[] = [{ refId: 'b', title: 'cup' }, { refId: 'c', title: 'bowl', constructor: 9 }];
    const { catalog, rebuilt } = await appendedAndRebuilt(base, added);
    expect(contents(catalog.state)).toEqual(contents(rebuilt.state));
    const counts = (c: Catalog) => c.state.index.fields.map((f) => [f.name, f.valueCounts]);
    expect(counts(catalog)).toEqual(counts(rebuilt));
    expect(catalog.state.index.fields[catalog.state.fieldByName.get('constructor')!].valueCounts).toEqual({ numbers: 6, strays: 0 });
    await sameAnswer(catalog, rebuilt, { website_id: 'w', client: 'c', q: '', start: 0, size: 10, aggregations: ['toString'], range_fields: ['constructor'] }, false);
  });

  it('widens a single-valued column when appended values outgrow its code width, as a rebuild does', async () => {
    const products = (from: number, to: number): Product[] => Array.from({ length: to - from }, (_, i) => ({ refId: `p${from + i}`, title: `lamp ${from + i}`, brand: `brand ${from + i}` }));
    const catalog = new Catalog();
    const brand = () => catalog.state.index.fields[catalog.state.fieldByName.get('brand')!].text!.single;
    await catalog.upsert(products(0, 100));
    expect(brand()).toBeInstanceOf(Int8Array);
    await catalog.upsert(products(100, 128));
    expect(brand()).toBeInstanceOf(Int8Array);
    await catalog.upsert(products(128, 129));
    expect(brand()).toBeInstanceOf(Int16Array);
    const rebuilt = new Catalog();
    await rebuilt.upsert(products(0, 129));
    expect(contents(catalog.state)).toEqual(contents(rebuilt.state));
    await sameAnswer(catalog, rebuilt, { website_id: 'w', client: 'c', q: 'lamp', start: 0, size: 5, scope: { brand: ['brand 128', 'brand 3'] }, aggregations: ['brand'] }, true);
  });

  it('keeps 32-bit norm keys past 65,536 (field, tf, length) triples alike when building, appending and snapshotting', async () => {
    // Doc L (1..1,900 tokens) holds the words k1..km with term frequencies 1..m (m(m+1)/2 <= L), padded
    // with words of one occurrence: ~78,000 distinct (tf, length) pairs in one field.
    const notes = (length: number): string => {
      const words: string[] = [];
      for (let tf = 1; words.length + tf <= length; tf++) for (let i = 0; i < tf; i++) words.push(`k${tf}`);
      while (words.length < length) words.push(`pad${words.length}`);
      return words.join(' ');
    };
    const products: Product[] = Array.from({ length: 1_900 }, (_, i) => ({ refId: `p${i}`, notes: notes(i + 1) }));
    const base = products.slice(0, 1_850);
    const catalog = new Catalog();
    await catalog.upsert(base);
    expect(catalog.state.index.fullText.postKey).toBeInstanceOf(Uint32Array);
    await catalog.upsert(products.slice(1_850));
    const rebuilt = new Catalog();
    await rebuilt.upsert(products);
    expect(contents(catalog.state)).toEqual(contents(rebuilt.state));
    const loaded = Catalog.fromState({}, decodeCatalogSnapshot(encodeCatalogSnapshot(catalog.state)).makeState);
    expect(loaded.state.index.fullText.postKey).toBeInstanceOf(Uint32Array);
    for (const q of ['k3', 'k40 k2', 'k1']) {
      const request: SearchRequest = { website_id: 'w', client: 'c', q, start: 0, size: 30 };
      await sameAnswer(catalog, rebuilt, request, false);
      await sameAnswer(loaded, rebuilt, request, true);
    }
  }, 60_000);

  it('saturates field lengths at 65,535 tokens alike when building and appending', async () => {
    // Four values of 20,000 words (the most one value may hold): 80,000 tokens in one field.
    const long = (k: number) => Array.from({ length: 20_000 }, (_, i) => `w${(i * 7 + k) % 997}`).join(' ');
    const base: Product[] = [{ refId: 'a', title: 'short', notes: 'one two' }, { refId: 'b', title: 'other', notes: 'three' }];
    const added: Product[] = [{ refId: 'c', title: 'long', notes: [long(0), long(1), long(2), long(3)] }, { refId: 'd', title: 'w5', notes: 'w5 w6' }];
    const { catalog, rebuilt } = await appendedAndRebuilt(base, added);
    const { fullText } = rebuilt.state.index;
    const notes = fullText.fieldIds.indexOf(rebuilt.state.fieldByName.get('notes')!);
    expect(lengthAt(fullText.fieldLengths, fullText.lengthStride, notes, 2)).toBe(MAX_FIELD_LENGTH);
    expect(contents(catalog.state)).toEqual(contents(rebuilt.state));
    await sameAnswer(catalog, rebuilt, { website_id: 'w', client: 'c', q: 'w5', start: 0, size: 10 }, false);
  });

  it('adds a field no product had as a rebuild would: full-text indexed or not by the catalog weights', async () => {
    const options = { fieldWeights: { muted: 0, notes: 2 } };
    const base: Product[] = [{ refId: 'a', title: 'red shoe' }, { refId: 'b', title: 'blue shoe', price: 3 }];
    const added: Product[] = [
      { refId: 'c', title: 'green shoe', muted: 'red', notes: 'red laces', size: 42, url: 'x/y' },
      { refId: 'd', title: 'shoe', notes: ['blue', 'red'], size: '43', none: [] },
    ];
    const grown = new Catalog(options);
    await grown.upsert(base);
    expect(runSteps(planAppend(grown.state, [added]))).toHaveLength(2);
    await grown.upsert(added);
    const rebuilt = new Catalog(options);
    await rebuilt.upsert([...base, ...added]);
    expect(contents(grown.state)).toEqual(contents(rebuilt.state));
    const names = (c: Catalog) => c.state.index.fullText.fieldIds.map((fid) => c.state.index.fields[fid].name);
    expect(names(grown)).toEqual(['title', 'notes']);
    expect(grown.state.index.fields.map((f) => [f.name, f.kind])).toEqual([
      ['refId', 'text'], ['title', 'text'], ['price', 'numeric'], ['muted', 'text'], ['notes', 'text'], ['size', 'numeric'], ['url', 'text'], ['none', 'none'],
    ]);
    // A snapshot stores the appended postings merged: loaded, it answers alike.
    const loaded = Catalog.fromState(options, decodeCatalogSnapshot(encodeCatalogSnapshot(grown.state)).makeState);
    expect(grown.state.index.fullText.tail).toBeDefined();
    expect(loaded.state.index.fullText.tail).toBeUndefined();
    for (const q of ['red', 'laces', 'blue', '']) {
      const request: SearchRequest = { website_id: 'w', client: 'c', q, start: 0, size: 10, aggregations: ['notes', 'size', 'muted'], range_fields: ['size'] };
      await sameAnswer(grown, rebuilt, request, false);
      await sameAnswer(grown, rebuilt, request, true);
      await sameAnswer(loaded, rebuilt, request, false);
    }
  });

  it('keeps appended docs of values older docs have in the inverted column tail, read as a build lays it out', async () => {
    const base: Product[] = Array.from({ length: 40 }, (_, i) => ({ refId: `p${i}`, title: `shoe ${i}`, brand: `b${i % 5}`, tags: [`t${i % 3}`, `t${i % 4}`] }));
    const grown = new Catalog();
    await grown.upsert(base);
    const added: Product[] = [];
    for (let round = 0; round < 3; round++) {
      const batch = [{ refId: `n${round}`, title: 'shoe', brand: `b${round}`, tags: ['t1', `new${round}`] }, { refId: `m${round}`, title: 'boot', brand: 'b9' }];
      added.push(...batch);
      await grown.upsert(batch);
    }
    await grown.upsert([{ ...base[7], brand: 'b1' }]); // tombstone + re-append into a tailed code
    await grown.delete(['n1']);
    const brand = grown.state.index.fields[grown.state.fieldByName.get('brand')!].text!;
    expect(brand.valueTail?.codes.length).toBeGreaterThan(0);
    const rebuilt = new Catalog();
    await rebuilt.upsert([...base.slice(0, 7), ...base.slice(8), ...added.filter((p) => p.refId !== 'n1'), { ...base[7], brand: 'b1' }]);
    const loaded = Catalog.fromState({}, decodeCatalogSnapshot(encodeCatalogSnapshot(grown.state)).makeState);
    const scopes: SearchRequest['scope'][] = [{ brand: ['b1'] }, { brand: ['b0', 'b9'] }, { tags: ['t1'] }, { tags: ['new2', 't3'] }, undefined];
    for (const scope of scopes) {
      const request: SearchRequest = { website_id: 'w', client: 'c', q: '', start: 0, size: 50, aggregations: ['brand', 'tags'], ...(scope ? { scope } : {}) };
      for (const catalog of [grown, loaded]) {
        const run = async (c: Catalog, onPool: boolean) => {
          const { result, aggregations, total_results } = await executeSearch(c, request, onPool ? { pool } : {});
          return { refIds: result.map((p) => p.refId).sort(), aggregations, total_results };
        };
        expect(await run(catalog, false)).toEqual(await run(rebuilt, false));
        expect(await run(catalog, true)).toEqual(await run(rebuilt, false));
      }
    }
  });

  it('takes the rebuild for a known refId or a value changing a field kind, not for a new field', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a', title: 'red shoe', price: 10, tags: [] }, { refId: 'b', title: 'blue shoe', price: 20 }]);
    const plan = (products: Product[]) => runSteps(planAppend(catalog.state, [products]));
    expect(plan([{ refId: 'c', title: 'green shoe', price: 5 }])).toHaveLength(1);
    expect(plan([{ refId: 'c', title: 'green shoe', price: '5.50', tags: [] }])).toHaveLength(1);
    expect(plan([{ refId: 'a', title: 'red shoe', price: 11 }])).toBeUndefined();
    expect(plan([{ refId: 'c', title: 'green shoe', colour: 'green', size: 42, none: [] }])).toHaveLength(1);
    expect(plan([{ refId: 'c', title: 'green shoe', price: 'n/a' }])).toBeUndefined();
    expect(plan([{ refId: 'c', title: 'green shoe', tags: ['x'] }])).toBeUndefined();
  });

  it('numbers every doc in steps when a product first takes the place of another (the product order made)', async () => {
    const catalog = new Catalog();
    await catalog.upsert(Array.from({ length: 4 * STEP }, (_, i) => ({ refId: `p${i}`, title: 'shoe' })));
    const base = catalog.state;
    expect(base.index.ordinal).toBeUndefined();
    const yields = (steps: Steps<unknown>): number => {
      let count = 0;
      while (!steps.next().done) count++;
      return count;
    };
    const added = [{ refId: 'new', title: 'boot' }];
    const plain = yields(appendProducts(base, added, base.index.version + 1));
    const placed = yields(appendProducts(base, added, base.index.version + 1, new Map([['new', 7]])));
    // One yield per STEP docs numbered, beside the append's own.
    expect(placed - plain).toBe(4);
  });
});
