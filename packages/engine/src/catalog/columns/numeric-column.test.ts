import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runSteps } from '../steps.js';
import { Catalog } from '../catalog.js';
import { numericOrderSteps, numericPerDoc, perDocValues } from './numeric-column.js';
import type { Product, SearchRequest } from '../../types.js';
import { executeSearch } from '../../search/execute-search.js';
import { productsOf } from './product-store.js';

/** The order by definition: docs with a value, by (value, doc) ascending. */
function reference(values: Float64Array): number[] {
  const docs: number[] = [];
  values.forEach((v, d) => { if (!Number.isNaN(v)) docs.push(d); });
  return docs.sort((a, b) => (values[a] < values[b] ? -1 : values[a] > values[b] ? 1 : a - b));
}

describe('numeric order', () => {
  it('lists the docs having a value by (value, doc), whatever the values (ties, NaN, -0, infinities)', () => {
    const value = fc.oneof(fc.constantFrom(Number.NaN, -0, 0, Infinity, -Infinity, 1, 2), fc.double({ noNaN: true }), fc.integer({ min: -5, max: 5 }));
    fc.assert(fc.property(fc.array(value, { maxLength: 300 }), (list) => {
      const values = Float64Array.from(list);
      const order = runSteps(numericOrderSteps(perDocValues(values), values.length));
      expect(order.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(Array.from(order)).toEqual(reference(values));
    }), { numRuns: 300 });
  });

  it('orders a column longer than a step of work, codes shared by many docs', () => {
    const values = Float64Array.from({ length: 20_000 }, (_, d) => (d % 11 === 0 ? Number.NaN : (d * 7919) % 1000));
    const byCode = Float64Array.from([Number.NaN, ...Array.from({ length: 1000 }, (_, c) => c)]);
    const codes = Int32Array.from(values, (v) => (Number.isNaN(v) ? -1 : v));
    expect(Array.from(runSteps(numericOrderSteps({ byCode, codes }, values.length)))).toEqual(reference(values));
  });
});

/** Field `name`'s numbers per doc in a catalog's current version. */
function numbersOf(catalog: Catalog, name: string): number[] {
  const { index, fieldByName } = catalog.state;
  return Array.from(numericPerDoc(index.fields[fieldByName.get(name)!], index.docCount));
}

describe('numeric columns read through codes', () => {
  it('read through the text codes when every doc gets its number that way, with codes of their own otherwise', async () => {
    const catalog = new Catalog();
    await catalog.upsert([
      { refId: 'a', price: 10, size: '42', tags: 1, odd: ['7'] },
      { refId: 'b', price: '10.50', size: 'XL', tags: [1, 2], odd: '8' },
      { refId: 'c', price: -3, tags: 3, odd: 8 },
    ]);
    const { index, fieldByName } = catalog.state;
    const field = (name: string) => index.fields[fieldByName.get(name)!];
    // price and size: single-valued text columns whose values read as the docs' numbers.
    expect(field('price').numeric!.docCodes).toBeUndefined();
    expect(field('size').numeric!.docCodes).toBeUndefined();
    expect(field('price').numeric!.byCode.length).toBe(field('price').text!.dictSize + 1);
    // tags: multi-valued; odd: ["7"] reads "7" through its code but, an array, has no number.
    expect(field('tags').numeric!.docCodes).toBeDefined();
    expect(field('odd').numeric!.docCodes).toBeDefined();
    expect(numbersOf(catalog, 'price')).toEqual([10, 10.5, -3]);
    expect(numbersOf(catalog, 'size')).toEqual([42, Number.NaN, Number.NaN]);
    expect(numbersOf(catalog, 'tags')).toEqual([1, Number.NaN, 3]);
    expect(numbersOf(catalog, 'odd')).toEqual([Number.NaN, 8, 8]);
  });

  it('gives the per-doc numbers (a snapshot writes them) on a SharedArrayBuffer, as both layouts read them', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a', price: 10, tags: [1, 2] }, { refId: 'b', price: 2.5, tags: 3 }]);
    const { index, fieldByName } = catalog.state;
    // A plain buffer is external memory to V8: a snapshot's 8 MB a field at 1M started collections of
    // the whole heap during its write (decision 0087).
    for (const name of ['price', 'tags']) expect(numericPerDoc(index.fields[fieldByName.get(name)!], index.docCount).buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(numbersOf(catalog, 'price')).toEqual([10, 2.5]);
    expect(numbersOf(catalog, 'tags')).toEqual([Number.NaN, 3]);
  });

  it('keeps reading through codes across appends and patches of new values, and takes own codes when it must', async () => {
    const catalog = new Catalog();
    const products: Product[] = [{ refId: 'a', price: 10, n: 1 }, { refId: 'b', price: 20, n: 2 }];
    await catalog.upsert(products);
    const priceField = () => catalog.state.index.fields[catalog.state.fieldByName.get('price')!];
    const before = priceField().numeric!.byCode;
    await catalog.upsert([{ refId: 'a', price: 1e300, n: 1 }]); // a patch: a new code
    expect(priceField().numeric!.docCodes).toBeUndefined();
    expect(before.length).toBe(3); // the previous version's table is untouched
    await catalog.upsert([{ refId: 'c', price: -0.125, n: 3 }]); // an append: a new code
    expect(priceField().numeric!.docCodes).toBeUndefined();
    expect(numbersOf(catalog, 'price')).toEqual([1e300, 20, -0.125]);
    // A new doc with several values: the column takes codes of its own, numbers unchanged.
    await catalog.upsert([{ refId: 'd', price: [5, 6], n: 4 }]);
    expect(priceField().numeric!.docCodes).toBeDefined();
    expect(numbersOf(catalog, 'price')).toEqual([1e300, 20, -0.125, Number.NaN]);
    await catalog.upsert([{ refId: 'b', price: 0.1, n: 2 }, { refId: 'e', price: '7', n: 5 }]);
    // b is not patched (its column is multi-valued now): tombstoned and appended again, after d.
    expect(numbersOf(catalog, 'price')).toEqual([1e300, 20, -0.125, Number.NaN, 0.1, 7]);
    expect(numbersOf(catalog, 'n')).toEqual([1, 2, 3, 4, 2, 5]);
  });
});

describe('a column with codes of its own', () => {
  it('is patched and appended to as a rebuild of the same products reads it', async () => {
    const value = fc.oneof(fc.integer({ min: -3, max: 9 }), fc.constantFrom(0.5, -1e21, 1e300, '4', ' 2.5 '));
    await fc.assert(fc.asyncProperty(
      fc.array(value, { minLength: 3, maxLength: 40 }), fc.nat(), fc.array(fc.tuple(fc.nat(), value), { minLength: 1, maxLength: 6 }),
      fc.array(fc.option(value, { nil: undefined }), { maxLength: 4 }),
      async (values, arrayAt, patches, appended) => {
        // One doc holds ["7"]: its code reads 7, the doc has no number, so the column takes codes of its own.
        const products: Product[] = values.map((v, i) => ({ refId: `p${i}`, v: i === arrayAt % values.length ? ['7'] : v }));
        const catalog = new Catalog();
        await catalog.upsert(products);
        const fid = catalog.state.fieldByName.get('v')!;
        expect(catalog.state.index.fields[fid].numeric!.docCodes).toBeDefined();
        const request: SearchRequest = { website_id: 'w', client: 'c', q: '', start: 0, size: 50, range_fields: ['v'], sort_fields: [{ v: { order: 'desc', type: 'number' } }] };
        await executeSearch(catalog, request); // derives the order, which the patch then merges
        const next = products.slice();
        for (const [at, v] of patches) if (!Array.isArray(next[at % next.length].v)) next[at % next.length] = { ...next[at % next.length], v };
        await catalog.upsert(next.filter((p, i) => p !== products[i]));
        const added = appended.map((v, i): Product => (v === undefined ? { refId: `n${i}` } : { refId: `n${i}`, v }));
        if (added.length > 0) await catalog.upsert(added);
        const rebuilt = new Catalog();
        await rebuilt.upsert([...next, ...added]);
        expect(productsOf(catalog.state.store)).toEqual(productsOf(rebuilt.state.store));
        expect(numbersOf(catalog, 'v')).toEqual(numbersOf(rebuilt, 'v'));
        for (const r of [request, { ...request, scope: { v: { min: 0, max: 8 } } } as SearchRequest]) {
          expect(await executeSearch(catalog, r)).toEqual(await executeSearch(rebuilt, r));
        }
      },
    ), { numRuns: 60 });
  });
});
