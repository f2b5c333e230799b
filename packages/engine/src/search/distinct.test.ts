import { describe, expect, it } from 'vitest';
import { Catalog } from '../catalog/catalog.js';
import type { WebsiteSettings } from '../config.js';
import { isAisleError } from '../errors.js';
import type { Product, SearchRequest } from '../types.js';
import fc from 'fast-check';
import { countGroupValues, mergeRepresentatives, selectGroups } from './distinct.js';
import { executeSearch } from './execute-search.js';

const request = (extra: Partial<SearchRequest> = {}): SearchRequest => ({ website_id: 'w', client: 'c', q: '', start: 0, size: 20, ...extra });

// Two styles in two colours and sizes, a product without a style and one whose style is "".
const products: Product[] = [
  { refId: 'a-red-s', title: 'cotton tee', style_id: 'A', color: 'red', size: 'S', price: 10 },
  { refId: 'a-red-m', title: 'cotton tee', style_id: 'A', color: 'red', size: 'M', price: 12 },
  { refId: 'a-blue-s', title: 'cotton tee', style_id: 'A', color: 'blue', size: 'S', price: 9 },
  { refId: 'b-red-l', title: 'wool jumper', style_id: 'B', color: 'red', size: 'L', price: 40 },
  { refId: 'b-green-m', title: 'wool jumper', style_id: 'B', color: 'green', size: 'M', price: 45 },
  { refId: 'loose', title: 'cotton scarf', color: 'red', price: 5 },
  { refId: 'blank', title: 'cotton socks', style_id: '', color: 'blue', price: 3 },
];

async function catalog(): Promise<Catalog> {
  const c = new Catalog();
  await c.upsert(products);
  return c;
}

const settings = (facetCounts?: 'products' | 'groups'): WebsiteSettings => ({ distinct: { field: 'style_id', ...(facetCounts && { facetCounts }) } });

describe('distinct search', () => {
  it('answers one result per group, the best under the order, with _variants and totals counting groups', async () => {
    const c = await catalog();
    const page = await executeSearch(c, request({ sort_fields: [{ price: { order: 'asc', type: 'number' } }] }), { settings: settings() });
    expect(page.result.map((p) => [p.refId, p._variants])).toEqual([['blank', 1], ['loose', 1], ['a-blue-s', 3], ['b-red-l', 2]]);
    expect(page.total_results).toBe(4);
    const text = await executeSearch(c, request({ q: 'cotton', scope: { color: ['red'] } }), { settings: settings() });
    expect(text.total_results).toBe(2);
    expect(text.result.find((p) => p.style_id === 'A')?._variants).toBe(2); // the matching red ones only
  });

  it('pages over groups', async () => {
    const c = await catalog();
    const sort = [{ price: { order: 'desc' as const, type: 'number' as const } }];
    const first = await executeSearch(c, request({ sort_fields: sort, size: 2 }), { settings: settings() });
    const second = await executeSearch(c, request({ sort_fields: sort, start: 2, size: 2 }), { settings: settings() });
    expect([...first.result, ...second.result].map((p) => p.refId)).toEqual(['b-green-m', 'a-red-m', 'loose', 'blank']);
  });

  it('is off for distinct: false and without the setting; distinct: true without it is a bad request', async () => {
    const c = await catalog();
    expect((await executeSearch(c, request({ distinct: false }), { settings: settings() })).total_results).toBe(7);
    const plain = await executeSearch(c, request(), {});
    expect(plain.total_results).toBe(7);
    expect(plain.result[0]._variants).toBeUndefined();
    await expect(executeSearch(c, request({ distinct: true }), { settings: { distinct: false } })).rejects.toSatisfy((e: unknown) =>
      isAisleError(e) && e.code === 'SEARCH_BAD_REQUEST' && /distinct/.test(e.message));
  });

  it('counts facets and buckets per product or per group; min/max stay over products', async () => {
    const c = await catalog();
    const r = request({ aggregations: ['color', 'size'], range_fields: ['price'], range_buckets: { price: [10, 20] } });
    const perProduct = await executeSearch(c, r, { settings: settings('products') });
    expect(perProduct.aggregations!.color).toEqual([{ key: 'red', doc_count: 4 }, { key: 'blue', doc_count: 2 }, { key: 'green', doc_count: 1 }]);
    const perGroup = await executeSearch(c, r, { settings: settings('groups') });
    // red: A, B, loose; blue: A, blank; green: B. Sizes: S and M in A count once each.
    expect(perGroup.aggregations!.color).toEqual([{ key: 'red', doc_count: 3 }, { key: 'blue', doc_count: 2 }, { key: 'green', doc_count: 1 }]);
    expect(perGroup.aggregations!.size).toEqual([{ key: 'M', doc_count: 2 }, { key: 'L', doc_count: 1 }, { key: 'S', doc_count: 1 }]);
    expect(perGroup.range_buckets!.price.map((b) => b.count)).toEqual([3, 1, 1]); // <10: A, loose, blank; 10-20: A; >=20: B
    expect(perGroup.ranges!.price).toEqual({ min: 3, max: 45 });
  });

  it('counts a disjunctive facet\'s near misses per group', async () => {
    const c = await catalog();
    const r = request({ scope: { color: ['green'] }, disjunctive_facets: ['color'] });
    const page = await executeSearch(c, r, { settings: settings('groups') });
    expect(page.total_results).toBe(1);
    expect(page.aggregations!.color).toEqual([{ key: 'red', doc_count: 3 }, { key: 'blue', doc_count: 2 }, { key: 'green', doc_count: 1 }]);
  });

  it('lets a pinned product represent its group at its position', async () => {
    const c = await catalog();
    const pinned: WebsiteSettings = { ...settings(), rules: [{ id: 'p', query: '', match: 'contains', pin: [{ refId: 'a-red-m', position: 4 }] }] };
    const page = await executeSearch(c, request({ sort_fields: [{ price: { order: 'asc', type: 'number' } }] }), { settings: pinned });
    expect(page.result.map((p) => p.refId)).toEqual(['blank', 'loose', 'b-red-l', 'a-red-m']);
    expect(page.result[3]._variants).toBe(3);
    expect(page.total_results).toBe(4);
  });
});

describe('countGroupValues', () => {
  it('counts a group once per value, a doc without a group as its own, and hands back pairs of non-local groups', () => {
    const group = [0, 0, 1, -1, 1, 2];
    const values = [[0, 1], [1], [0], [0], [0, 2], [2]];
    const counts = new Uint32Array(3);
    const pairs: number[] = [];
    countGroupValues([0, 1, 2, 3, 4, 5], 6, (d) => group[d], 3, (d, visit) => values[d].forEach(visit), counts, (g) => g !== 2, pairs);
    expect([...counts]).toEqual([3, 1, 1]); // 0: groups 0, 1 and doc 3; 1: group 0; 2: group 1
    expect(pairs).toEqual([2, 2]);
  });
});

describe('mergeRepresentatives', () => {
  it('keeps the first doc of each group, ungrouped docs all', () => {
    const group = [5, 5, -1, 6, -1, 6];
    expect([...mergeRepresentatives([1, 0, 2, 5, 4, 3], (d) => group[d], 10)]).toEqual([1, 2, 5, 4]);
  });
});

describe('selectGroups', () => {
  it('keeps the best limit groups by their best candidate, as sorting every candidate and keeping first members would', () => {
    fc.assert(fc.property(
      fc.array(fc.tuple(fc.integer({ min: -1, max: 6 }), fc.integer({ min: 0, max: 9 })), { maxLength: 60 }), fc.integer({ min: 0, max: 8 }),
      (rows, limit) => {
        const docs = Int32Array.from(rows, (_, i) => i);
        const group = rows.map(([g]) => g);
        const score = rows.map(([, s]) => s);
        const before = (a: number, b: number) => score[b] - score[a] || a - b; // score desc, then doc
        const { top, groups } = selectGroups(docs, docs.length, false, (d) => group[d], 7, limit, before, { split: true });
        const sorted = [...docs].sort(before);
        const seen = new Set<number>();
        const expected = sorted.filter((d) => group[d] < 0 || (!seen.has(group[d]) && seen.add(group[d]) !== undefined)).slice(0, limit);
        expect([...top]).toEqual(expected);
        expect([...groups.topCounts]).toEqual(expected.map((d) => (group[d] < 0 ? 1 : group.filter((g) => g === group[d]).length)));
        expect(groups.ungrouped).toBe(group.filter((g) => g < 0).length);
        expect(new Set(groups.codes).size).toBe(new Set(group.filter((g) => g >= 0)).size);
        expect(groups.touched).toBe(groups.codes!.length);
      },
    ), { numRuns: 500 });
  });
});

describe('distinct with hierarchical facets and facet search', () => {
  // Style A's three variants sit in Clothing > Tees, B's two in Clothing > Knits, the loose scarf in Clothing.
  const tree: Product[] = products.map((p) => ({
    ...p, cat: p.style_id === 'A' ? ['Clothing', 'Tees'] : p.style_id === 'B' ? ['Clothing', 'Knits'] : ['Clothing'],
  }));
  const both = (facetCounts: 'products' | 'groups'): WebsiteSettings => ({ ...settings(facetCounts), hierarchies: { cat: { field: 'cat' } } });

  it('counts a group once per node and per value with facetCounts "groups", every product with "products"', async () => {
    const c = new Catalog();
    await c.upsert(tree);
    const ask = request({ hierarchical_facets: ['cat'], scope: { cat: ['Clothing'] }, facet_search: { field: 'color', q: 're' } });
    const groups = await executeSearch(c, ask, { settings: both('groups') });
    // Groups: A, B, the scarf, the "" product: four in Clothing; one per style in its own node.
    expect(groups.hierarchical_aggregations!.cat).toEqual([{ value: 'Clothing', path: 'Clothing', count: 4, children: [
      { value: 'Knits', path: 'Clothing > Knits', count: 1 }, { value: 'Tees', path: 'Clothing > Tees', count: 1 },
    ] }]);
    // Red: style A, style B and the scarf (three groups), whatever the number of red variants.
    expect(groups.facet_hits).toEqual([{ value: 'red', count: 3, highlighted: '<em>re</em>d' }]);
    const items = await executeSearch(c, ask, { settings: both('products') });
    expect(items.hierarchical_aggregations!.cat).toEqual([{ value: 'Clothing', path: 'Clothing', count: 7, children: [
      { value: 'Tees', path: 'Clothing > Tees', count: 3 }, { value: 'Knits', path: 'Clothing > Knits', count: 2 },
    ] }]);
    expect(items.facet_hits).toEqual([{ value: 'red', count: 4, highlighted: '<em>re</em>d' }]);
  });
});
