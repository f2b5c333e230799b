import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { serialize } from '../src/codecs.js';

const page = (result: object[], extra: Record<string, unknown> = {}) => ({
  type: 1,
  payload: { result, total_results: result.length, suggestions: {}, redirects: {}, ...extra },
  query_id: 'mhx3k2p1.Qm9vb2sgaGVsbG8gdw',
});

describe('search response serialiser', () => {
  it('writes the page and the rest of the envelope exactly (a field or facet named "result" included)', () => {
    const products = [{ refId: 'a', title: 'x "q" é\u2028', price: '12.50', nested: { a: [1, null] } }, { refId: 'b', result: [] }];
    const response = { ...page(products, { aggregations: { result: [{ key: 'k', doc_count: 1 }] }, ranges: { price: { min: null, max: 3 } } }), settings: { ats_model: 'm' } };
    expect(isDeepStrictEqual(JSON.parse(serialize.SearchResponse(response)), response)).toBe(true);
    expect(JSON.parse(serialize.SearchResponse(page([])))).toEqual(page([]));
  });

  it('splices the page from the product cache, so every envelope field (query_id, settings) comes after payload.result', () => {
    // A product is never mutated in place (a change makes a new object); mutating one here shows which path wrote the page.
    const product = { refId: 'p', title: 'first' };
    serialize.SearchResponse({ ...page([product]), settings: { ats_model: 'm' } });
    product.title = 'mutated';
    expect(serialize.SearchResponse({ ...page([product]), settings: { ats_model: 'm' } })).toContain('"title":"first"');
  });

  it('serialises a changed product anew: the cache is keyed by the product object', () => {
    const first = { refId: 'p', title: 'old' };
    expect(serialize.SearchResponse(page([first]))).toContain('"title":"old"');
    const changed = { refId: 'p', title: 'new' };
    expect(serialize.SearchResponse(page([changed]))).toContain('"title":"new"');
    expect(serialize.SearchResponse(page([first, changed]))).toContain('[{"refId":"p","title":"old"},{"refId":"p","title":"new"}]');
  });
});
