import { describe, expect, it } from 'vitest';
import {
  facetQueryResult, highlightResult, parseFacetFilter, parseNumericFilter, planQueries, toAisleRequest, toAlgoliaResult, toFacetResult, toFacetSearchRequest, UnsupportedQueryError,
  type TranslateOptions,
} from './translate.js';
import type { AisleSearchResponse, AlgoliaQuery } from './wire.js';

const options: TranslateOptions = {
  websiteId: 'shop', client: 'c', numericFields: ['price', 'availability'],
  sortIndices: { products_price_asc: [{ price: { order: 'asc', type: 'number' } }] },
};

describe('range buckets for range widgets', () => {
  it('asks for the bands of a numeric facet given bounds, and answers them in aisle.rangeBuckets', () => {
    const banded = { ...options, rangeBuckets: { price: [20, 50] } };
    const query: AlgoliaQuery = { indexName: 'products', params: { facets: ['brand', 'price', 'availability'], numericFilters: ['price>=10'] } };
    const request = toAisleRequest(query, banded);
    expect(request).toMatchObject({ range_fields: ['price', 'availability'], range_buckets: { price: [20, 50] }, scope: { price: { min: 10 } } });
    // Without the facet (no range widget on the field) no bands are asked for.
    expect(toAisleRequest({ indexName: 'products', params: { facets: ['brand'] } }, banded).range_buckets).toBeUndefined();
    const bands = [{ to: 20, count: 4 }, { from: 20, to: 50, count: 9 }, { from: 50, count: 2 }];
    const response: AisleSearchResponse = { type: 1, query_id: 'q0', payload: { result: [], total_results: 15, ranges: { price: { min: 10, max: 80 } }, range_buckets: { price: bands } } };
    const result = toAlgoliaResult(response, query);
    expect(result.aisle?.rangeBuckets).toEqual({ price: bands });
    expect(result.facets_stats).toEqual({ price: { min: 10, max: 80, avg: 0, sum: 0 } });
  });
});

describe('distinct (variants)', () => {
  it('sends distinct true for true or 1, false for false or 0, nothing when absent; refuses more than one hit per group', () => {
    const distinct = (value: unknown) => toAisleRequest({ indexName: 'products', params: { distinct: value as boolean } }, options).distinct;
    expect(distinct(true)).toBe(true);
    expect(distinct(1)).toBe(true);
    expect(distinct(false)).toBe(false);
    expect(distinct(0)).toBe(false);
    expect(distinct(undefined)).toBeUndefined();
    expect(() => distinct(3)).toThrow(UnsupportedQueryError);
    expect(() => distinct('yes')).toThrow(/distinct: "yes"/);
  });
  it('keeps each hit\'s _variants', () => {
    const response: AisleSearchResponse = { type: 1, query_id: 'q1', payload: { result: [{ refId: 'a', title: 'tee', _variants: 3 }], total_results: 1 } };
    expect(toAlgoliaResult(response, { indexName: 'products' }).hits[0]).toMatchObject({ objectID: 'a', _variants: 3 });
  });
});

describe('InstantSearch query → aisle request', () => {
  it('maps query, paging, facets, ranges, sort and highlighting', () => {
    const request = toAisleRequest({
      indexName: 'products_price_asc',
      params: { query: 'shirt', page: 2, hitsPerPage: 12, facets: ['brand', 'price', 'search_category'], highlightPreTag: '__ais-highlight__' },
    }, options);
    expect(request).toEqual({
      website_id: 'shop', client: 'c', q: 'shirt', start: 24, size: 12, aggregations: ['brand', 'search_category'], range_fields: ['price'],
      sort_fields: [{ price: { order: 'asc', type: 'number' } }], highlight: true,
    });
    expect(toAisleRequest({ indexName: 'products' }, { ...options, highlight: false, customerId: 'cust-1' }))
      .toEqual({ website_id: 'shop', client: 'c', q: '', start: 0, size: 20, customer_id: 'cust-1' });
  });

  it('maps facet filters: AND, OR groups (disjunctive), exclusions, numeric values', () => {
    const request = toAisleRequest({
      indexName: 'products',
      params: {
        facets: ['brand', 'color', 'size'],
        facetFilters: [['brand:Acme', 'brand:Zanzibar'], 'color:red', 'size:-XL', 'availability:3', 'title:a:b', 'tag:\\-dash'],
      },
    }, options);
    expect(request.scope).toEqual({
      brand: ['Acme', 'Zanzibar'], color: ['red'], size: { not: ['XL'] }, title: ['a:b'], tag: ['-dash'], availability: { min: 3, max: 3 },
    });
    expect(request.disjunctive_facets).toEqual(['brand']);
    // AND-ed filters of one field are one condition: every value of `all`, one of `any`, none of `not`
    // (on a multi-valued field a product has both tags; the intersection of the lists matched nothing).
    const scopeOf = (facetFilters: NonNullable<AlgoliaQuery['params']>['facetFilters']) => toAisleRequest({ indexName: 'p', params: { facetFilters } }, options).scope;
    expect(scopeOf(['tags:a', 'tags:b'])).toEqual({ tags: { all: ['a', 'b'] } });
    expect(scopeOf(['tags:a', 'tags:b', 'tags:-c'])).toEqual({ tags: { all: ['a', 'b'], not: ['c'] } });
    expect(scopeOf([['tags:a', 'tags:b'], 'tags:c'])).toEqual({ tags: { all: ['c'], any: ['a', 'b'] } });
    expect(scopeOf([['color:red', 'color:blue'], 'color:-red'])).toEqual({ color: { any: ['red', 'blue'], not: ['red'] } });
    // A value required on its own satisfies an OR group holding it; a value given twice is one.
    expect(scopeOf([['tags:a', 'tags:b'], 'tags:a', 'tags:a'])).toEqual({ tags: ['a'] });
    expect(toAisleRequest({ indexName: 'p', params: { facetFilters: 'color:red' } }, options).scope).toEqual({ color: ['red'] });
  });

  it('maps numeric filters to inclusive bounds, exact for strict operators', () => {
    const request = toAisleRequest({ indexName: 'p', params: { numericFilters: ['price>=10', 'price<=100', 'price>20', 'price!=50', ['availability>0']] } }, options);
    expect(request.scope).toEqual({ price: { min: 20, max: 100, not: [20, 50] }, availability: { min: 0, not: [0] } });
    expect(toAisleRequest({ indexName: 'p', params: { numericFilters: ['price=5', 'price<1e3'] } }, options).scope).toEqual({ price: { min: 5, max: 5, not: [1000] } });
  });

  it('refuses what aisle cannot express, naming it', () => {
    const bad: AlgoliaQuery['params'][] = [
      { filters: 'brand:Acme OR price > 10' }, { facetFilters: ['brand'] }, { facetFilters: [['brand:a', 'color:b']] },
      { facetFilters: [['brand:a', 'brand:-b']] }, { numericFilters: [['price>1', 'price<0']] }, { numericFilters: ['price between 1 and 2'] },
      // Two OR groups on one field: (a or b) and (c or d) is no one condition.
      { facetFilters: [['tags:a', 'tags:b'], ['tags:c', 'tags:d']] },
      { facetFilters: [['price:1', 'price:2']] }, { facetFilters: ['price:cheap'] },
      // An exclusion of a non-number on a numeric field was sent as {not: [null]} (NaN in JSON), a 400 from aisle.
      { facetFilters: ['price:-cheap'] },
    ];
    for (const params of bad) expect(() => toAisleRequest({ indexName: 'p', params }, options), JSON.stringify(params)).toThrow(UnsupportedQueryError);
  });

  it('parses filters', () => {
    expect(parseFacetFilter('brand:-Acme')).toEqual({ field: 'brand', value: 'Acme', negated: true });
    expect(parseNumericFilter(' price >= -1.5 ')).toEqual({ field: 'price', op: '>=', value: -1.5 });
  });
});

describe('aisle response → InstantSearch result', () => {
  const response: AisleSearchResponse = {
    type: 1,
    query_id: 'q0',
    payload: {
      result: [{ refId: 'p1', title: 'Red <shirt>', brand: 'Acme', price: 10, _highlight: { title: 'Red <em>shirt</em> &amp; tie', brand: '<em>Acme</em>' } }, { refId: 'p2', title: 'Blue', price: 20 }],
      total_results: 45,
      aggregations: { brand: [{ key: 'Acme', doc_count: 30 }, { key: 'Zanzibar', doc_count: 15 }] },
      ranges: { price: { min: 10, max: 20 }, weight: { min: null, max: null } },
      suggestions: { corrected_query: 'shirt' },
      redirects: {},
    },
    settings: { ats_model: 'aisle-bm25f-1' },
  };

  it('maps hits, totals, pages, facets and facet stats', () => {
    const result = toAlgoliaResult(response, { indexName: 'products', params: { query: 'shrt', page: 1, hitsPerPage: 10, highlightPreTag: '<mark>', highlightPostTag: '</mark>' } }, 3.4);
    expect(result).toMatchObject({
      index: 'products', query: 'shrt', nbHits: 45, page: 1, nbPages: 5, hitsPerPage: 10, processingTimeMS: 3,
      facets: { brand: { Acme: 30, Zanzibar: 15 }, price: {}, weight: {} },
      facets_stats: { price: { min: 10, max: 20, avg: 0, sum: 0 } },
      aisle: { suggestions: { corrected_query: 'shirt' }, atsModel: 'aisle-bm25f-1' },
    });
    expect(result.hits[0]).toMatchObject({ objectID: 'p1', refId: 'p1', title: 'Red <shirt>', brand: 'Acme', price: 10 });
    expect(result.hits[0]!._highlight).toBeUndefined();
    expect(result.hits[0]!._highlightResult!.title).toEqual({ value: 'Red <mark>shirt</mark> &amp; tie', matchLevel: 'full', matchedWords: ['shirt'], fullyHighlighted: false });
    expect(result.hits[1]!._highlightResult!.title).toEqual({ value: 'Blue', matchLevel: 'none', matchedWords: [] });
    expect(result.hits[0]!._highlightResult!.brand).toEqual({ value: '<mark>Acme</mark>', matchLevel: 'full', matchedWords: ['Acme'], fullyHighlighted: true });
    expect(result.params).toContain('query=shrt');
  });

  it('escapes product text that aisle did not highlight', () => {
    expect(highlightResult({ refId: 'x', title: '<script>' }, '<em>', '</em>').title!.value).toBe('&lt;script&gt;');
  });

  it('answers the helper\'s per-facet queries from the main search when aisle counts them disjunctively', () => {
    const queries: AlgoliaQuery[] = [
      { indexName: 'products', params: { query: 'a', facets: ['brand', 'price'], facetFilters: [['brand:Acme']], numericFilters: ['price>=1'] } },
      { indexName: 'products', params: { query: 'a', hitsPerPage: 0, page: 0, facets: 'brand', numericFilters: ['price>=1'] } },
      { indexName: 'products', params: { query: 'a', hitsPerPage: 0, page: 0, facets: 'price', facetFilters: [['brand:Acme']] } },
      { indexName: 'other', params: { query: 'a', hitsPerPage: 0, facets: 'brand' } },
    ];
    const requests = queries.map((q) => toAisleRequest(q, options));
    expect(requests[0]!.disjunctive_facets).toEqual(['brand']);
    expect(planQueries(queries, requests)).toEqual([0, 0, 2, 3]);
    const main = toAlgoliaResult(response, queries[0]!);
    const facet = facetQueryResult(main, queries[1]!);
    expect(facet).toMatchObject({ hits: [], hitsPerPage: 0, facets: { brand: { Acme: 30, Zanzibar: 15 } } });
  });
});

describe('hierarchicalMenu and searchable refinementList', () => {
  const withTree: TranslateOptions = { ...options, hierarchicalFacets: { categories: { attributes: ['cat.lvl0', 'cat.lvl1', 'cat.lvl2'] } } };

  it('asks for the hierarchy when a level is a facet, and sends a refined level as its scope', () => {
    const query: AlgoliaQuery = { indexName: 'products', params: { facets: ['cat.lvl0', 'cat.lvl1', 'brand'], facetFilters: [['cat.lvl1:Home > Kitchen'], 'brand:Acme'] } };
    const request = toAisleRequest(query, withTree);
    expect(request).toMatchObject({ hierarchical_facets: ['categories'], aggregations: ['brand'], scope: { brand: ['Acme'], categories: ['Home > Kitchen'] } });
    // Another separator in the widget: the path is rewritten with aisle's " > ".
    const slash = toAisleRequest({ indexName: 'products', params: { facets: ['cat.lvl0'], facetFilters: ['cat.lvl1:Home/Kitchen'] } },
      { ...options, hierarchicalFacets: { categories: { attributes: ['cat.lvl0', 'cat.lvl1'], separator: '/' } } });
    expect(slash.scope).toEqual({ categories: ['Home > Kitchen'] });
  });

  it('answers the tree as one facet per level keyed by full paths, and the level queries from the main query', () => {
    const main: AlgoliaQuery = { indexName: 'products', params: { facets: ['cat.lvl0', 'cat.lvl1', 'cat.lvl2'], facetFilters: [['cat.lvl1:Home > Kitchen']] } };
    const sibling: AlgoliaQuery = { indexName: 'products', params: { hitsPerPage: 0, facets: ['cat.lvl0', 'cat.lvl1'], facetFilters: [['cat.lvl0:Home']] } };
    const requests = [main, sibling].map((q) => toAisleRequest(q, withTree));
    expect(planQueries([main, sibling], requests)).toEqual([0, 0]);
    const response: AisleSearchResponse = {
      type: 1, query_id: 'q1', payload: {
        result: [], total_results: 5, hierarchical_aggregations: { categories: [
          { value: 'Home', path: 'Home', count: 9, children: [{ value: 'Kitchen', path: 'Home > Kitchen', count: 5, children: [{ value: 'Pots', path: 'Home > Kitchen > Pots', count: 2 }] }, { value: 'Garden', path: 'Home > Garden', count: 4 }] },
          { value: 'Toys', path: 'Toys', count: 3 },
        ] },
      },
    };
    const result = toAlgoliaResult(response, main, 0, withTree);
    expect(result.facets).toEqual({ 'cat.lvl0': { Home: 9, Toys: 3 }, 'cat.lvl1': { 'Home > Kitchen': 5, 'Home > Garden': 4 }, 'cat.lvl2': { 'Home > Kitchen > Pots': 2 } });
    expect(facetQueryResult(result, sibling).facets).toEqual({ 'cat.lvl0': { Home: 9, Toys: 3 }, 'cat.lvl1': { 'Home > Kitchen': 5, 'Home > Garden': 4 } });
  });

  it('maps a search for facet values to facet_search, and its hits back with the query\'s highlight tags', () => {
    const query = { indexName: 'products', params: { facetName: 'brand', facetQuery: 'ac', maxFacetHits: 500, query: 'shirt', facetFilters: ['brand:Zeta'], highlightPreTag: '__ais-highlight__', highlightPostTag: '__/ais-highlight__' } };
    expect(toFacetSearchRequest(query, options)).toEqual({
      website_id: 'shop', client: 'c', q: 'shirt', start: 0, size: 0, scope: { brand: ['Zeta'] }, facet_search: { field: 'brand', q: 'ac', size: 100 },
    });
    const response: AisleSearchResponse = { type: 1, query_id: 'q2', payload: { result: [], total_results: 0, facet_hits: [{ value: 'Acme & Co', count: 4, highlighted: '<em>Ac</em>me &amp; Co' }] } };
    expect(toFacetResult(response, query)).toEqual({
      facetHits: [{ value: 'Acme & Co', count: 4, highlighted: '__ais-highlight__Ac__/ais-highlight__me &amp; Co' }], exhaustiveFacetsCount: true, processingTimeMS: 0,
    });
  });
});
