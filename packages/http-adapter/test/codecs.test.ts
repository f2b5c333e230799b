import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import fastJson from 'fast-json-stringify';
import { serialize, serializerFor } from '../src/codecs.js';
import { inlineRefs, schemas } from '../src/schemas.js';

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

describe('recommendation response serialiser', () => {
  const serializeRecommend = serializerFor('RecommendResponse');
  /** The schema's own serialiser, compiled here: what every answer must be written as. */
  const reference = fastJson(inlineRefs(schemas.RecommendResponse) as fastJson.AnySchema);
  const frozenAnswer = (refIds: string[], label: string, recommenderId: string) => {
    const slots = Object.freeze(refIds.map((refId) => Object.freeze({ refId, tacticLabel: label, tacticId: 't1' })));
    return { type: 1, code: 0, payload: Object.freeze([...refIds]), slots, recommenderId };
  };

  it('writes kept (frozen) answers, their id spliced in, exactly as the schema\'s serialiser does', () => {
    const text = fc.string({ unit: 'binary', maxLength: 12 });
    fc.assert(fc.property(fc.array(text, { maxLength: 5 }), text, text, fc.array(text, { minLength: 1, maxLength: 3 }), (refIds, label, recommenderId, ids) => {
      const kept = frozenAnswer(refIds, label, recommenderId);
      // Several answers of one kept answer: one per id, each its own object.
      for (const queryId of ids) {
        const answer = { ...kept, queryId };
        expect(serializeRecommend(answer)).toBe(reference(answer));
      }
    }), { numRuns: 500 });
  });

  it('writes an answer with an experiment tag, or lists that are not frozen, through the schema (nothing kept stale)', () => {
    const kept = frozenAnswer(['a', 'b'], 'Popular', 'r');
    const tagged = { ...kept, queryId: 'q1', experiment: { id: 'e1', variant: 'B' } };
    expect(serializeRecommend(tagged)).toBe(reference(tagged));
    const open = { type: 1, code: 0, payload: ['a'], slots: [{ refId: 'a', tacticLabel: 'L', tacticId: 't' }], recommenderId: 'r', queryId: 'q2' };
    expect(serializeRecommend(open)).toBe(reference(open));
    open.slots[0]!.refId = 'changed';
    open.payload[0] = 'changed';
    expect(serializeRecommend(open)).toBe(reference(open));
    // Frozen slots under another recommender (not what the engine makes, but never written stale).
    const other = { ...kept, recommenderId: 'other', queryId: 'q3' };
    expect(serializeRecommend({ ...kept, queryId: 'q0' })).toBe(reference({ ...kept, queryId: 'q0' }));
    expect(serializeRecommend(other)).toBe(reference(other));
  });
});
