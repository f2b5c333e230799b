import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { serialize } from '../src/codecs.js';

const page = (result: object[], extra: Record<string, unknown> = {}) => ({
  type: 1,
  payload: { result, total_results: result.length, suggestions: {}, redirects: {}, ...extra },
});

describe('search response serialiser', () => {
  it('writes the page and the rest of the envelope exactly (a field or facet named "result" included)', () => {
    const products = [{ refId: 'a', title: 'x "q" é\u2028', price: '12.50', nested: { a: [1, null] } }, { refId: 'b', result: [] }];
    const response = { ...page(products, { aggregations: { result: [{ key: 'k', doc_count: 1 }] }, ranges: { price: { min: null, max: 3 } } }), settings: { ats_model: 'm' } };
    expect(isDeepStrictEqual(JSON.parse(serialize.SearchResponse(response)), response)).toBe(true);
    expect(JSON.parse(serialize.SearchResponse(page([])))).toEqual(page([]));
  });

  it('serialises a changed product anew: the cache is keyed by the product object', () => {
    const first = { refId: 'p', title: 'old' };
    expect(serialize.SearchResponse(page([first]))).toContain('"title":"old"');
    const changed = { refId: 'p', title: 'new' };
    expect(serialize.SearchResponse(page([changed]))).toContain('"title":"new"');
    expect(serialize.SearchResponse(page([first, changed]))).toContain('[{"refId":"p","title":"old"},{"refId":"p","title":"new"}]');
  });
});
