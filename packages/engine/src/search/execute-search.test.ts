import { describe, expect, it } from 'vitest';
import { Catalog } from '../catalog/catalog.js';
import type { WebsiteSettings } from '../config.js';
import { isAisleError } from '../errors.js';
import type { Product, SearchRequest } from '../types.js';
import { MAX_FACET_BUCKETS } from './assemble-payload.js';
import { executeSearch } from './execute-search.js';
import { validateSearchRequest } from './validate-search-request.js';
import { catalogOf } from './__tests__/catalog-of.js';

const request = (q: string, extra: Partial<SearchRequest> = {}): SearchRequest => ({ website_id: 'w', client: 'c', q, start: 0, size: 50, ...extra });


const ids = (r: { result: Product[] }) => r.result.map((p) => p.refId);

async function badRequest(promise: Promise<unknown>, field: string): Promise<void> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(isAisleError(err) && err.code === 'SEARCH_BAD_REQUEST').toBe(true);
  expect((err as Error).message).toContain(field);
}

const shop: Product[] = [
  { refId: 'p1', title: 'Red Cotton Shirt', brand: 'Acme', search_category: 'Shirts', price: 20, tags: ['new', 'sale'], availability: 1 },
  { refId: 'p2', title: 'Blue Denim Shirt', brand: 'Zeta', search_category: 'Shirts', price: '35.50', tags: ['sale'], availability: 0 },
  { refId: 'p3', title: 'Café au lait mug', brand: 'Ålpha', search_category: 'Kitchen', price: 8, tags: [], availability: -1 },
  { refId: 'p4', title: 'Red running shoes', brand: 'Acme', search_category: 'Shoes', price: 120, tags: ['new'] },
  { refId: 'p5', title: 'Television 55 inch', brand: 'Zeta', search_category: 'TV', price: 1e9, rating: 4.5 },
  { refId: 'p6', title: 'Shirtless hanger', brand: null, search_category: 'Home' },
];

describe('executeSearch: text', () => {
  it('follows a settings object whose relevance member was replaced between two searches', async () => {
    const catalog = await catalogOf(shop);
    const settings: WebsiteSettings = { stopWords: [] };
    expect(ids(await executeSearch(catalog, request('red shirt'), { settings }))).toEqual(['p1']);
    // The same object, a member replaced: "red" becomes a stop word, so "shirt" alone matches (completed: "shirtless").
    settings.stopWords = ['red'];
    expect(ids(await executeSearch(catalog, request('red shirt'), { settings })).sort()).toEqual(['p1', 'p2', 'p6']);
    settings.stopWords = [];
    expect(ids(await executeSearch(catalog, request('red shirt'), { settings }))).toEqual(['p1']);
  });
  it('matches every product for an empty, blank or punctuation-only query, in insertion order', async () => {
    const catalog = await catalogOf(shop);
    for (const q of ['', '   ', '?!', '-']) {
      const r = await executeSearch(catalog, request(q));
      expect(r.total_results).toBe(6);
      expect(ids(r)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
    }
  });
  it('requires every word, case- and accent-insensitively', async () => {
    const catalog = await catalogOf(shop);
    expect(ids(await executeSearch(catalog, request('RED shirt')))).toEqual(['p1']);
    expect(ids(await executeSearch(catalog, request('cafe')))).toEqual(['p3']);
    expect(ids(await executeSearch(catalog, request('CAFÉ MUG')))).toEqual(['p3']);
    expect(ids(await executeSearch(catalog, request('alpha')))).toEqual(['p3']); // brand Ålpha
    // Nothing has both: the products with the most words, and the word dropped.
    const dropped = await executeSearch(catalog, request('red banana'));
    expect(ids(dropped)).toEqual(['p1', 'p4']);
    expect(dropped.suggestions).toEqual({ dropped_words: ['banana'] });
  });
  it('matches the last word as a prefix, exact matches first', async () => {
    const catalog = await catalogOf(shop);
    const r = await executeSearch(catalog, request('shirt'));
    expect(ids(r).slice(0, 2).sort()).toEqual(['p1', 'p2']);
    expect(ids(r)[2]).toBe('p6'); // "shirtless": prefix only
    expect(ids(await executeSearch(catalog, request('televi')))).toEqual(['p5']);
    expect(ids(await executeSearch(catalog, request('shirt red')))).toEqual(['p1']);
  });
  it('treats a word before the last as a prefix only when it matches nothing of its own', async () => {
    const catalog = await catalogOf(shop);
    // "shirt" is a word of the catalog: "shirtless" (p6) does not match it in the middle of a query,
    // so nothing has both words and the best result (p6, "hanger") lacks "shirt".
    expect((await executeSearch(catalog, request('shirt hanger'))).suggestions.dropped_words).toEqual(['shirt']);
    // "tele" is no word of it: completed rather than dropped (see unmatched-word.ts).
    const r = await executeSearch(catalog, request('tele inch'));
    expect(ids(r)).toEqual(['p5']);
    expect(r.suggestions.dropped_words).toBeUndefined();
  });
  it('tolerates typos (1 edit from 4 letters, 2 from 8; a swap is one edit) and suggests the correction', async () => {
    const catalog = await catalogOf(shop);
    const r = await executeSearch(catalog, request('shrit'));
    expect(ids(r)).toContain('p1');
    expect(r.suggestions).toEqual({ corrected_query: 'shirt' });
    expect(ids(await executeSearch(catalog, request('televsiion')))).toEqual(['p5']);
    expect(ids(await executeSearch(catalog, request('tlevisoin')))).toEqual(['p5']);
    expect((await executeSearch(catalog, request('rde'))).total_results).toBe(0); // 3 letters: no typo allowed
    expect((await executeSearch(catalog, request('shirt'))).suggestions).toEqual({});
  });
  it('answers a page past the end at any start the contract allows (a top-k of start + size threw past the typed-array limit)', async () => {
    // Enough products with one word for the block-max ranking of one term (top-of-term.ts).
    const catalog = await catalogOf([...shop, ...Array.from({ length: 1000 }, (_, i) => ({ refId: `s${i}`, title: `shirt ${i % 7 === 0 ? 'red' : 'blue'}`, price: i }))]);
    for (const q of ['shirt', 'red shirt', '']) {
      for (const start of [1e8, Number.MAX_SAFE_INTEGER]) {
        const r = await executeSearch(catalog, request(q, { start, size: 1000, sort_fields: q === '' ? [{ price: { order: 'asc', type: 'number' } }] : undefined }));
        expect(r.result).toEqual([]);
        expect(r.total_results).toBe((await executeSearch(catalog, request(q))).total_results);
      }
    }
  });
  it('suggests a correction only where the results bear it out: not for a dropped word, not when nothing matched', async () => {
    const catalog = await catalogOf(shop);
    // Within the scope no shirt is a Zeta product: "shrit" is dropped, and the page answers "zeta" alone.
    const dropped = await executeSearch(catalog, request('zeta shrit', { scope: { brand: ['Zeta'], search_category: ['TV'] } }));
    expect(ids(dropped)).toEqual(['p5']);
    expect(dropped.suggestions).toEqual({ dropped_words: ['shrit'] });
    // The scope leaves nothing for the corrected word: "did you mean shirt?" would find nothing either.
    const none = await executeSearch(catalog, request('shrit', { scope: { search_category: ['Kitchen'] } }));
    expect(none.total_results).toBe(0);
    expect(none.suggestions).toEqual({});
    // A correction that matched is kept beside a dropped word.
    const both = await executeSearch(catalog, request('shrit zzzz'));
    expect(both.suggestions).toEqual({ corrected_query: 'shirt zzzz', dropped_words: ['zzzz'] });
  });
  it('does not widen a word that matches exactly with typo variants (shirts does not find shorts)', async () => {
    const catalog = await catalogOf([
      { refId: 'typo', title: 'shorts shorts shorts' },
      { refId: 'exact', title: 'a long title about many things and also shirts' },
    ]);
    const r = await executeSearch(catalog, request('shirts', { aggregations: ['title'] }));
    expect(ids(r)).toEqual(['exact']);
    expect(r.total_results).toBe(1);
    expect(r.aggregations?.title).toHaveLength(1);
    expect(ids(await executeSearch(catalog, request('shxrts'))).sort()).toEqual(['exact', 'typo']); // no exact match: typos apply
  });
  it('ranks exact matches above stem and prefix matches', async () => {
    const catalog = await catalogOf([
      { refId: 'prefix', title: 'lampshade lampshade' },
      { refId: 'stem', title: 'lamps lamps' },
      { refId: 'exact', title: 'a long title about many things and a lamp' },
    ]);
    expect(ids(await executeSearch(catalog, request('lamp')))[0]).toBe('exact');
  });
  it('weights fields (title above description) and lets settings override the weights', async () => {
    const catalog = await catalogOf([
      { refId: 'desc', title: 'Plain item', description: 'lamp' },
      { refId: 'title', title: 'Lamp', description: 'plain item' },
    ]);
    expect(ids(await executeSearch(catalog, request('lamp')))).toEqual(['title', 'desc']);
    const settings: WebsiteSettings = { fieldWeights: { title: 0.1, description: 10 } };
    expect(ids(await executeSearch(catalog, request('lamp'), { settings }))).toEqual(['desc', 'title']);
    expect(ids(await executeSearch(catalog, request('lamp'), { settings: { fieldWeights: { description: 0 } } }))).toEqual(['title']);
  });
  it('breaks relevance ties by insertion order', async () => {
    const catalog = await catalogOf(Array.from({ length: 40 }, (_, i) => ({ refId: `p${i}`, title: 'same words' })));
    expect(ids(await executeSearch(catalog, request('same', { size: 40 })))).toEqual(Array.from({ length: 40 }, (_, i) => `p${i}`));
  });
  it('expands synonyms from the catalog options and the settings', async () => {
    const catalog = await catalogOf(shop, { synonyms: [['tv', 'television']] });
    expect(ids(await executeSearch(catalog, request('tv')))).toEqual(['p5']);
    expect(ids(await executeSearch(catalog, request('telly'), { settings: { synonyms: [['telly', 'Television']] } }))).toEqual(['p5']);
  });
  it('sets redirects.url when a rule matches the normalised query', async () => {
    const catalog = await catalogOf(shop);
    const settings: WebsiteSettings = { redirects: [{ queries: ['Gift Cards!'], url: 'https://shop/gifts' }] };
    expect((await executeSearch(catalog, request('  gift   CARDS '), { settings })).redirects).toEqual({ url: 'https://shop/gifts' });
    expect((await executeSearch(catalog, request('gift'), { settings })).redirects).toEqual({});
  });
});

describe('executeSearch: scope', () => {
  it('ORs values within a field, ANDs fields, and mixes text and numeric conditions', async () => {
    const catalog = await catalogOf(shop);
    expect(ids(await executeSearch(catalog, request('', { scope: { brand: ['Acme', 'Zeta'] } })))).toEqual(['p1', 'p2', 'p4', 'p5']);
    expect(ids(await executeSearch(catalog, request('', { scope: { brand: ['Acme', 'Zeta'], price: { max: 50 } } })))).toEqual(['p1', 'p2']);
    expect(ids(await executeSearch(catalog, request('', { scope: { price: { min: 35.5, max: 120 } } })))).toEqual(['p2', 'p4']);
    expect(ids(await executeSearch(catalog, request('', { scope: { price: { min: 100 } } })))).toEqual(['p4', 'p5']);
  });
  it('filters and facets on refId like any text field', async () => {
    const catalog = await catalogOf(shop);
    const r = await executeSearch(catalog, request('', { scope: { refId: ['p4', 'p2', 'nope'] }, aggregations: ['refId'] }));
    expect(ids(r)).toEqual(['p2', 'p4']);
    expect(r.aggregations?.refId).toEqual([{ key: 'p2', doc_count: 1 }, { key: 'p4', doc_count: 1 }]);
  });
  it('matches a multi-valued field when any value is listed', async () => {
    const catalog = await catalogOf(shop);
    expect(ids(await executeSearch(catalog, request('', { scope: { tags: ['new'] } })))).toEqual(['p1', 'p4']);
  });
  it('matches nothing for a field no product has, or a value none has', async () => {
    const catalog = await catalogOf(shop);
    expect((await executeSearch(catalog, request('', { scope: { nope: ['x'] } }))).total_results).toBe(0);
    expect((await executeSearch(catalog, request('', { scope: { nope: { min: 1 } } }))).total_results).toBe(0);
    expect((await executeSearch(catalog, request('', { scope: { brand: ['Nobody'] } }))).total_results).toBe(0);
  });
  it('supports the exclusion extension (text and numeric; missing values are kept)', async () => {
    const catalog = await catalogOf(shop);
    expect(ids(await executeSearch(catalog, request('', { scope: { availability: { not: [0] } } })))).toEqual(['p1', 'p3', 'p4', 'p5', 'p6']);
    expect(ids(await executeSearch(catalog, request('', { scope: { brand: { not: ['Acme'] } } })))).toEqual(['p2', 'p3', 'p5', 'p6']);
    expect(ids(await executeSearch(catalog, request('', { scope: { price: { min: 0, not: [8, 120] } } })))).toEqual(['p1', 'p2', 'p5']);
  });
  it('rejects a numeric range on a text field and a list on a numeric field', async () => {
    const catalog = await catalogOf(shop);
    await badRequest(executeSearch(catalog, request('', { scope: { brand: { min: 1 } } })), 'scope.brand');
    await badRequest(executeSearch(catalog, request('', { scope: { price: ['20'] } })), 'scope.price');
    await badRequest(executeSearch(catalog, request('', { scope: { price: { not: ['20'] } } })), 'scope.price');
  });
});

describe('executeSearch: aggregations and ranges', () => {
  it('counts range buckets: every band listed, from inclusive, to exclusive; a text field is refused', async () => {
    const catalog = await catalogOf(shop);
    // Prices: 20, "35.50", 8, 120, 1e9, none.
    const r = await executeSearch(catalog, request('', { range_buckets: { price: [8, 20, 100], rating: [1] } }));
    expect(r.range_buckets).toEqual({
      price: [{ to: 8, count: 0 }, { from: 8, to: 20, count: 1 }, { from: 20, to: 100, count: 2 }, { from: 100, count: 2 }],
      rating: [{ to: 1, count: 0 }, { from: 1, count: 1 }],
    });
    // The field's own scope condition applies unless the field is a disjunctive facet.
    const scoped = request('', { scope: { price: { max: 50 } }, range_buckets: { price: [8, 20, 100] } });
    expect((await executeSearch(catalog, scoped)).range_buckets!.price.map((b) => b.count)).toEqual([0, 1, 2, 0]);
    expect((await executeSearch(catalog, { ...scoped, disjunctive_facets: ['price'] })).range_buckets!.price.map((b) => b.count)).toEqual([0, 1, 2, 2]);
    // With query text too: "shirt" finds p1 (20), p2 (35.50) and p6 (no price); the price condition keeps p1.
    const text = request('shirt', { scope: { price: { max: 30 } }, range_buckets: { price: [8, 20, 100] } });
    expect((await executeSearch(catalog, text)).range_buckets!.price.map((b) => b.count)).toEqual([0, 0, 1, 0]);
    expect((await executeSearch(catalog, { ...text, disjunctive_facets: ['price'] })).range_buckets!.price.map((b) => b.count)).toEqual([0, 0, 2, 0]);
    // A field no product has: 400 (a misspelling), unless pinned: then zero counts.
    const weight = request('', { range_buckets: { weight: [1] } });
    await expect(executeSearch(catalog, weight)).rejects.toMatchObject({ message: 'search request: range_buckets.weight names "weight", which no product has' });
    const pinned = await executeSearch(catalog, weight, { settings: { fields: { weight: { type: 'number' } } } });
    expect(pinned.range_buckets).toEqual({ weight: [{ to: 1, count: 0 }, { from: 1, count: 0 }] });
    await expect(executeSearch(catalog, request('', { range_buckets: { brand: [1] } }))).rejects.toMatchObject({
      code: 'SEARCH_BAD_REQUEST', message: 'search request: range_buckets.brand names "brand", which is not a numeric field',
    });
  });
  it('counts documents per value over all matches, count desc then key asc, multi-valued values each', async () => {
    const catalog = await catalogOf(shop);
    const r = await executeSearch(catalog, request('', { size: 1, aggregations: ['brand', 'tags', 'nope', 'price'] }));
    expect(r.aggregations).toEqual({
      brand: [{ key: 'Acme', doc_count: 2 }, { key: 'Zeta', doc_count: 2 }, { key: 'Ålpha', doc_count: 1 }],
      tags: [{ key: 'new', doc_count: 2 }, { key: 'sale', doc_count: 2 }],
      nope: [],
      price: [{ key: '1000000000', doc_count: 1 }, { key: '120', doc_count: 1 }, { key: '20', doc_count: 1 }, { key: '35.50', doc_count: 1 }, { key: '8', doc_count: 1 }],
    });
    const scoped = await executeSearch(catalog, request('red', { aggregations: ['search_category'] }));
    expect(scoped.aggregations?.search_category).toEqual([{ key: 'Shirts', doc_count: 1 }, { key: 'Shoes', doc_count: 1 }]);
  });
  it('serves whole-catalog facets from a per-version cache without sharing the lists', async () => {
    const catalog = await catalogOf(shop);
    const first = await executeSearch(catalog, request('', { aggregations: ['brand'] }));
    first.aggregations!.brand.push({ key: 'junk', doc_count: 99 });
    const second = await executeSearch(catalog, request('', { aggregations: ['brand'] }));
    expect(second.aggregations!.brand).toEqual([{ key: 'Acme', doc_count: 2 }, { key: 'Zeta', doc_count: 2 }, { key: 'Ålpha', doc_count: 1 }]);
    await catalog.upsert([{ refId: 'p7', brand: 'Zeta' }]);
    const third = await executeSearch(catalog, request('', { aggregations: ['brand'] }));
    expect(third.aggregations!.brand[0]).toEqual({ key: 'Zeta', doc_count: 3 });
  });
  it('gives min and max over matches, numeric strings and huge values included', async () => {
    const catalog = await catalogOf(shop);
    const r = await executeSearch(catalog, request('', { range_fields: ['price', 'rating', 'nope'] }));
    expect(r.ranges).toEqual({ price: { min: 8, max: 1e9 }, rating: { min: 4.5, max: 4.5 }, nope: { min: null, max: null } });
    const none = await executeSearch(catalog, request('shirt', { range_fields: ['rating'] }));
    expect(none.ranges).toEqual({ rating: { min: null, max: null } });
  });
  it('rejects a range over a text field', async () => {
    const catalog = await catalogOf(shop);
    await badRequest(executeSearch(catalog, request('', { range_fields: ['price', 'brand'] })), 'range_fields[1]');
  });
  it('treats a field named __proto__ like any other field', async () => {
    const catalog = await catalogOf([JSON.parse('{"refId":"a","__proto__":"x","n":1}'), JSON.parse('{"refId":"b","__proto__":"y","n":2}')]);
    const body = JSON.parse('{"website_id":"w","client":"c","q":"","start":0,"scope":{"__proto__":["x"]},"aggregations":["__proto__"],"range_fields":["n"]}');
    const r = await executeSearch(catalog, validateSearchRequest(body));
    expect(ids(r)).toEqual(['a']);
    expect(Object.keys(r.aggregations!)).toEqual(['__proto__']);
    expect(JSON.stringify(r.aggregations)).toBe('{"__proto__":[{"key":"x","doc_count":1}]}');
  });
  it('returns at most MAX_FACET_BUCKETS buckets per field: the largest, then by key', async () => {
    const products: Product[] = [];
    for (let i = 0; i < MAX_FACET_BUCKETS + 50; i++) products.push({ refId: `p${String(i).padStart(5, '0')}`, color: i < 3 ? 'red' : 'blue', title: 'mug' });
    const catalog = await catalogOf(products);
    for (const q of ['', 'mug']) {
      const r = await executeSearch(catalog, request(q, { size: 1, aggregations: ['refId', 'color'] }));
      expect(r.aggregations!.refId).toHaveLength(MAX_FACET_BUCKETS);
      expect(r.aggregations!.refId[0]).toEqual({ key: 'p00000', doc_count: 1 });
      expect(r.aggregations!.refId.at(-1)).toEqual({ key: `p0${MAX_FACET_BUCKETS - 1}`, doc_count: 1 });
      expect(r.aggregations!.color).toEqual([{ key: 'blue', doc_count: MAX_FACET_BUCKETS + 47 }, { key: 'red', doc_count: 3 }]);
      expect(r.total_results).toBe(MAX_FACET_BUCKETS + 50);
    }
  });
  it('works on an empty catalog (a sort key sorts as absent when its field is pinned)', async () => {
    const sorted = request('anything', { aggregations: ['brand'], range_fields: ['price'], sort_fields: [{ price: { order: 'asc', type: 'number' } }] });
    const r = await executeSearch(new Catalog(), sorted, { settings: { fields: { price: { type: 'number' } } } });
    expect(r).toEqual({ result: [], total_results: 0, aggregations: { brand: [] }, ranges: { price: { min: null, max: null } }, suggestions: {}, redirects: {} });
    await expect(executeSearch(new Catalog(), sorted)).rejects.toMatchObject({ code: 'SEARCH_BAD_REQUEST', message: 'search request: sort_fields[0].price names "price", which no product has' });
  });
});

describe('executeSearch: sort and paging', () => {
  it('refuses a sort key naming a field no product has, or a text field sorted as a number (400 naming it)', async () => {
    const catalog = await catalogOf(shop);
    const sortedBy = (field: string, type: 'number' | 'text') => request('', { sort_fields: [{ title: { order: 'asc', type: 'text' } }, { [field]: { order: 'asc', type } }] });
    await expect(executeSearch(catalog, sortedBy('prcie', 'number'))).rejects.toMatchObject({ code: 'SEARCH_BAD_REQUEST', message: 'search request: sort_fields[1].prcie names "prcie", which no product has' });
    await expect(executeSearch(catalog, sortedBy('brand', 'number'))).rejects.toMatchObject({ code: 'SEARCH_BAD_REQUEST', message: 'search request: sort_fields[1].brand names "brand", a text field: sort it with type "text"' });
    // A field products have without a value (an object, an image vector) was said to be one "no product has".
    const held = await catalogOf([{ refId: 'v1', title: 'lamp', specs: { watts: 40 }, image_vector: [1, 0] }, { refId: 'v2', title: 'desk', specs: { legs: 4 } }]);
    const noValues = (field: string) => `names "${field}", which no product has a value of (objects, empty lists, null and image vectors are not values)`;
    for (const field of ['specs', 'image_vector']) {
      await expect(executeSearch(held, sortedBy(field, 'text'))).rejects.toMatchObject({ message: `search request: sort_fields[1].${field} ${noValues(field)}` });
      await expect(executeSearch(held, request('', { range_buckets: { [field]: [1] } }))).rejects.toMatchObject({ message: `search request: range_buckets.${field} ${noValues(field)}` });
      await expect(executeSearch(held, request('', { facet_search: { field, q: '' } }))).rejects.toMatchObject({ message: `search request: facet_search.field ${noValues(field)}` });
    }
    // A numeric field sorts as text too (its values' text); a pinned field no product has sorts as absent.
    expect(ids(await executeSearch(catalog, sortedBy('price', 'text')))).toHaveLength(6);
    const pinned = await executeSearch(catalog, sortedBy('weight', 'number'), { settings: { fields: { weight: { type: 'number' } } } });
    expect(ids(pinned)).toEqual(ids(await executeSearch(catalog, request('', { sort_fields: [{ title: { order: 'asc', type: 'text' } }] }))));
  });

  it('treats a field pinned to text as text, and refIds always as text, however numeric their values look', async () => {
    const catalog = await catalogOf([{ refId: '10', sku: 300 }, { refId: '9', sku: 1000 }, { refId: '100', sku: 20 }]);
    const settings = { fields: { sku: { type: 'text' as const } } };
    const byText = await executeSearch(catalog, request('', { sort_fields: [{ sku: { order: 'asc', type: 'text' } }] }), { settings });
    expect(ids(byText)).toEqual(['9', '100', '10']);
    await expect(executeSearch(catalog, request('', { range_fields: ['sku'] }), { settings })).rejects.toMatchObject({ code: 'SEARCH_BAD_REQUEST' });
    expect(ids(await executeSearch(catalog, request('', { scope: { sku: ['20'] } }), { settings }))).toEqual(['100']);
    // Unpinned, the same values are numbers.
    expect((await executeSearch(catalog, request('', { range_fields: ['sku'] }))).ranges).toEqual({ sku: { min: 20, max: 1000 } });
    await expect(executeSearch(catalog, request('', { sort_fields: [{ refId: { order: 'asc', type: 'number' } }] }))).rejects.toMatchObject({ code: 'SEARCH_BAD_REQUEST' });
    expect(ids(await executeSearch(catalog, request('', { scope: { refId: ['9', '10'] } })))).toEqual(['10', '9']);
  });

  it('sorts numbers numerically (numeric strings too), missing values last in both orders', async () => {
    const catalog = await catalogOf(shop);
    const asc = await executeSearch(catalog, request('', { sort_fields: [{ price: { order: 'asc', type: 'number' } }] }));
    expect(ids(asc)).toEqual(['p3', 'p1', 'p2', 'p4', 'p5', 'p6']);
    const desc = await executeSearch(catalog, request('', { sort_fields: [{ price: { order: 'desc', type: 'number' } }] }));
    expect(ids(desc)).toEqual(['p5', 'p4', 'p2', 'p1', 'p3', 'p6']);
  });
  it('sorts text by lower-cased value, then the next key, then insertion order', async () => {
    const catalog = await catalogOf([
      { refId: 'a', brand: 'beta', price: 2 }, { refId: 'b', brand: 'Alpha', price: 1 }, { refId: 'c', brand: 'Beta', price: 1 },
      { refId: 'd', price: 0 }, { refId: 'e', brand: 'alpha', price: 1 },
    ]);
    const r = await executeSearch(catalog, request('', { sort_fields: [{ brand: { order: 'asc', type: 'text' } }, { price: { order: 'asc', type: 'number' } }] }));
    expect(ids(r)).toEqual(['b', 'e', 'c', 'a', 'd']);
    const d = await executeSearch(catalog, request('', { sort_fields: [{ brand: { order: 'desc', type: 'text' } }] }));
    expect(ids(d)).toEqual(['a', 'c', 'b', 'e', 'd']);
  });
  it('pages with start and size; start beyond the end gives an empty page with the right total', async () => {
    const catalog = await catalogOf(Array.from({ length: 100 }, (_, i) => ({ refId: `p${i}`, n: 100 - i })));
    const sort = [{ n: { order: 'asc' as const, type: 'number' as const } }];
    expect(ids(await executeSearch(catalog, request('', { start: 10, size: 3, sort_fields: sort })))).toEqual(['p89', 'p88', 'p87']);
    expect(ids(await executeSearch(catalog, request('', { start: 10, size: 3 })))).toEqual(['p10', 'p11', 'p12']);
    const beyond = await executeSearch(catalog, request('', { start: 500, size: 10 }));
    expect(beyond.result).toEqual([]);
    expect(beyond.total_results).toBe(100);
    const none = await executeSearch(catalog, request('', { size: 0 }));
    expect(none.result).toEqual([]);
    expect(none.total_results).toBe(100);
    expect((await executeSearch(catalog, { website_id: 'w', client: 'c', q: '', start: 0 })).result).toHaveLength(20);
  });
  it('orders ties of the sort keys by relevance when there is query text', async () => {
    const catalog = await catalogOf([
      { refId: 'weak', title: 'lamp shade', description: 'a lamp', price: 5 },
      { refId: 'strong', title: 'lamp lamp lamp', price: 5 },
      { refId: 'cheap', title: 'lamp', price: 1 },
    ]);
    const r = await executeSearch(catalog, request('lamp', { sort_fields: [{ price: { order: 'asc', type: 'number' } }] }));
    expect(ids(r)[0]).toBe('cheap');
    expect(ids(r)).toHaveLength(3);
  });
});
