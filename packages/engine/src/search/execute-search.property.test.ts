/**
 * The engine against a plain reference implementation, on random catalogs and requests: totals,
 * facets, ranges and the order of sorted pages must be identical — inline and on the worker pool
 * (threshold 0, so every search fans out). One contract suite, two executions.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Catalog } from '../catalog/catalog.js';
import type { WebsiteSettings } from '../config.js';
import { isAisleError } from '../errors.js';
import type { Product, SearchPayload, SearchRequest } from '../types.js';
import { executeSearch } from './execute-search.js';
import { SearchPool } from './search-pool.js';
import { validateSearchRequest } from './validate-search-request.js';
import { ReferenceBadRequest, referenceSearch } from './__tests__/reference-search.js';
import { expectPageOrder } from './__tests__/page-order.js';
import { catalogArb, requestArb } from './__tests__/random-catalog.js';

type Run = (catalog: Catalog, request: SearchRequest) => Promise<SearchPayload>;

async function checkAgainstReference(run: Run, products: Product[], request: SearchRequest, synonyms: string[][] = []): Promise<void> {
  validateSearchRequest(request); // the generator only makes valid bodies
  const catalog = new Catalog({ synonyms });
  await catalog.upsert(products);
  let expected;
  try {
    expected = referenceSearch(products, request, synonyms);
  } catch (err) {
    if (!(err instanceof ReferenceBadRequest)) throw err;
    await expect(run(catalog, request)).rejects.toSatisfy((e: unknown) => isAisleError(e) && e.code === 'SEARCH_BAD_REQUEST');
    return;
  }
  const payload = await run(catalog, request);
  expect(payload.total_results).toBe(expected.total);
  // Dropped words: those the best result does not match, only when some word had to be dropped.
  const best = payload.result[0] ?? undefined;
  if (expected.dropping && request.start === 0 && best) {
    expect(payload.suggestions.dropped_words ?? []).toEqual(expected.droppedOf(products.find((p) => p.refId === best.refId)!));
  } else if (!expected.dropping) expect(payload.suggestions.dropped_words).toBeUndefined();
  expect(payload.aggregations ?? {}).toEqual(expected.aggregations);
  expect(payload.ranges ?? {}).toEqual(expected.ranges);
  expect(payload.range_buckets ?? {}).toEqual(expected.rangeBuckets);
  const size = request.size ?? 20;
  const page = expected.matches.slice(request.start, request.start + size);
  expectPageOrder(payload.result, page, request, expected.matches);
}

function contract(name: string, run: Run, numRuns: number): void {
  describe(name, () => {
    it('matches the reference implementation on random catalogs and requests', async () => {
      await fc.assert(fc.asyncProperty(catalogArb(100), requestArb, (products, request) => checkAgainstReference(run, products, request)), { numRuns });
    });
  });
}

contract('executeSearch inline', (catalog, request) => executeSearch(catalog, request), 200);

describe('executeSearch with synonyms', () => {
  it('matches the reference when query words have synonyms', async () => {
    const synonyms = [['tv', 'television'], ['phone', 'smartphone', 'garden']];
    await fc.assert(fc.asyncProperty(catalogArb(60), requestArb, (products, request) =>
      checkAgainstReference((c, r) => executeSearch(c, r), products, request, synonyms)), { numRuns: 60 });
  });
});

const pool = new SearchPool({ workers: 2, threshold: 0 });
afterAll(() => pool.close());
contract('executeSearch on the pool (threshold 0)', (catalog, request) => executeSearch(catalog, request, { pool }), 100);

// Relevance settings drawn at random: the pool must rank exactly as inline (whole payloads equal,
// order included), whatever the synonyms, stop words, typo tolerance, tie-breakers and weights.
const settingsArb: fc.Arbitrary<WebsiteSettings> = fc.record({
  synonyms: fc.option(fc.constantFrom<WebsiteSettings['synonyms']>(
    [['tv', 'television']], [{ from: 'phone', to: ['smart phone', 'garden'] }], [['red shirt', 'blue'], { from: 'x', to: ['cafe'] }],
  ), { nil: undefined }),
  stopWords: fc.option(fc.constantFrom(['red'], ['x', 'blue']), { nil: undefined }),
  typoTolerance: fc.option(fc.record({ minWordSizeOneTypo: fc.integer({ min: 1, max: 6 }), minWordSizeTwoTypos: fc.integer({ min: 6, max: 9 }) }), { nil: undefined }),
  ranking: fc.option(fc.constantFrom<WebsiteSettings['ranking']>(
    { tieBreakers: [{ field: 'price', order: 'desc' }] }, { tieBreakers: [{ field: 'brand', order: 'asc', type: 'text' }, { field: 'rating', order: 'desc' }] },
  ), { nil: undefined }),
  fieldWeights: fc.option(fc.constantFrom({ brand: 5 }, { title: 0.5, tags: 2 }), { nil: undefined }),
}).map((s) => Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined)) as WebsiteSettings);

const withScoreKey = requestArb.chain((r) => fc.boolean().map((useScore) => (useScore && r.sort_fields
  ? { ...r, sort_fields: [...r.sort_fields.slice(0, 1), { _score: { order: 'desc' as const, type: 'number' as const } }, ...r.sort_fields.slice(1)] }
  : r)));

describe('executeSearch: pool and inline rank alike', () => {
  it('gives identical payloads with random relevance settings', async () => {
    await fc.assert(fc.asyncProperty(catalogArb(100), withScoreKey, settingsArb, async (products, request, settings) => {
      const catalog = new Catalog();
      await catalog.upsert(products);
      const inline = await executeSearch(catalog, request, { settings }).catch((e: unknown) => e);
      const pooled = await executeSearch(catalog, request, { settings, pool }).catch((e: unknown) => e);
      expect(pooled).toEqual(inline);
    }), { numRuns: 80 });
  });
});
