/**
 * The re-rank stage never changes what a search finds: on random catalogs and requests, with random
 * signals (semantic, personalization and clicks), the totals, facets, ranges and suggestions are those of the plain search, every page holds
 * products of the plain result set, and the pages are cut from one reordering of the plain window (so
 * paging through a re-ranked search shows each product once). Inline and on the worker pool.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Catalog } from '../catalog/catalog.js';
import { isAisleError } from '../errors.js';
import type { Product, SearchRequest } from '../types.js';
import { executeRankedSearch, executeSearch, type SearchContext } from './execute-search.js';
import { blendOrder, makeReranker } from './rerank.js';
import { SearchPool } from './search-pool.js';
import { catalogArb, requestArb } from './__tests__/random-catalog.js';

/** A deterministic pseudo-random value in [0, 1) per (seed, refId). */
function noise(seed: number, refId: string): number {
  let h = seed >>> 0;
  for (let i = 0; i < refId.length; i++) h = Math.imul(h ^ refId.charCodeAt(i), 0x01000193) >>> 0;
  return (h % 10_000) / 10_000;
}

async function checkRerank(products: Product[], request: SearchRequest, seed: number, weights: [number, number, number], context: SearchContext): Promise<void> {
  const catalog = new Catalog();
  await catalog.upsert(products);
  const rerank = makeReranker({
    semantic: { weight: weights[0], scores: async (c) => ({ label: 'test@1', similarities: c.map((p) => noise(seed, p.refId) * 2 - 1) }) },
    personalization: weights[1] < 0 ? undefined : { weight: weights[1], affinity: (p) => noise(seed + 1, p.refId) },
    // Click signals as the learned evidence gives them: in [0, 1), most products without any.
    clicks: weights[2] < 0 ? undefined : { weight: weights[2], signals: (c) => c.map((p) => (noise(seed + 2, p.refId) < 0.7 ? 0 : noise(seed + 3, p.refId) * 0.9)) },
  });
  let plain;
  try {
    plain = await executeSearch(catalog, request, context);
  } catch (err) {
    if (!isAisleError(err) || err.code !== 'SEARCH_BAD_REQUEST') throw err;
    await expect(executeRankedSearch(catalog, request, { ...context, rerank })).rejects.toSatisfy((e: unknown) => isAisleError(e) && e.code === 'SEARCH_BAD_REQUEST');
    return;
  }
  const { payload, rankedBy, stages } = await executeRankedSearch(catalog, request, { ...context, rerank });
  const { result: plainPage, ...plainRest } = plain;
  const { result: page, ...rest } = payload;
  expect(rest).toEqual(plainRest);
  expect(page.length).toBe(plainPage.length);
  if ((request.sort_fields?.length ?? 0) > 0) {
    expect(page.map((p) => p.refId)).toEqual(plainPage.map((p) => p.refId));
    expect(rankedBy).toBeUndefined();
    expect(stages.filter((s) => s !== 'rules')).toEqual([]);
    return;
  }
  // The whole plain list, reordered in its first `depth` the way the stage does.
  const depth = rerank!.depth;
  const all = (await executeSearch(catalog, { ...request, start: 0, size: Math.max(plain.total_results, 1) }, context)).result;
  const window = all.slice(0, depth);
  const { order } = await rerank!.reorder(window, window.map((p) => catalog.state.store.revision(catalog.state.docByRefId.get(p.refId)!)));
  expect([...order].sort((a, b) => a - b)).toEqual(window.map((_, i) => i));
  const expected = order.map((i) => window[i]).concat(all.slice(depth));
  const size = request.size ?? 20;
  expect(page.map((p) => p.refId)).toEqual(expected.slice(request.start, request.start + size).map((p) => p.refId));
  expect(rankedBy === 'test@1').toBe(weights[0] > 0 && Math.min(window.length, plain.total_results) > 1);
}

// Personalization undefined (weight -1 here) keeps the narrower semantic window: both depths are exercised.
const weightsArb = fc.tuple(fc.constantFrom(0, 0.3, 5), fc.constantFrom(-1, 0, 0.3, 5), fc.constantFrom(-1, 0, 1, 5));

describe('re-rank stage', () => {
  it('keeps the set, totals, facets and ranges of the plain search (inline)', async () => {
    await fc.assert(fc.asyncProperty(catalogArb(160), requestArb, fc.nat(), weightsArb,
      (products, request, seed, weights) => checkRerank(products, request, seed, weights, {})), { numRuns: 120 });
  });

  const pool = new SearchPool({ workers: 2, threshold: 0 });
  afterAll(() => pool.close());
  it('keeps them on the worker pool too', async () => {
    await fc.assert(fc.asyncProperty(catalogArb(160), requestArb, fc.nat(), weightsArb,
      (products, request, seed, weights) => checkRerank(products, request, seed, weights, { pool })), { numRuns: 40 });
  });

  it('blends reciprocal ranks with the signals: no signal keeps the plain order, a strong one decides it', () => {
    expect(blendOrder(4, [])).toEqual([0, 1, 2, 3]);
    expect(blendOrder(4, [{ values: [0, 0, 0, 0], weight: 1 }])).toEqual([0, 1, 2, 3]);
    expect(blendOrder(3, [{ values: [0, 0.5, 1], weight: 10 }])).toEqual([2, 1, 0]);
    // A weak signal moves a product only past neighbours it beats by more than their rank advantage.
    expect(blendOrder(3, [{ values: [0, 0, 1], weight: 0.01 }])).toEqual([0, 1, 2]);
    expect(blendOrder(0, [])).toEqual([]);
    // Non-finite values (a broken host embedder) count as no signal.
    expect(blendOrder(3, [{ values: [Number.NaN, Number.POSITIVE_INFINITY, 0.5], weight: 1 }])).toEqual([2, 0, 1]);
  });
});
