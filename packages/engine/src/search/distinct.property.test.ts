/**
 * Variants (`distinct`) against the plain reference (reference-distinct.ts over reference-search.ts), on
 * random catalogs, requests and group fields: totals count groups, `_variants`, the representatives'
 * order, facet and bucket counts per product or per group — inline and on the worker pool (threshold 0:
 * every search fans out over ranges, so groups straddle ranges and are merged).
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Catalog } from '../catalog/catalog.js';
import type { WebsiteSettings } from '../config.js';
import type { DistinctSettings } from '../contract/settings-schema.js';
import { isAisleError } from '../errors.js';
import type { Product, SearchPayload, SearchRequest } from '../types.js';
import { executeSearch } from './execute-search.js';
import { SearchPool } from './search-pool.js';
import { validateSearchRequest } from './validate-search-request.js';
import { ReferenceBadRequest, referenceSearch } from './__tests__/reference-search.js';
import { expectPageOrder } from './__tests__/page-order.js';
import { referenceDistinct } from './__tests__/reference-distinct.js';
import { catalogArb, requestArb } from './__tests__/random-catalog.js';

/** Random catalogs whose products also carry a style id (few values, "", null, a number, or none). */
const styledCatalogArb = catalogArb(100).chain((products) =>
  fc.array(fc.constantFrom<unknown>('s1', 's2', 's3', 's4', 's5', 7, '', null, undefined), { minLength: products.length, maxLength: products.length })
    .map((styles) => products.map((p, i) => (styles[i] === undefined ? p : { ...p, style: styles[i] }))));

type Run = (catalog: Catalog, request: SearchRequest, settings: WebsiteSettings) => Promise<SearchPayload>;

const distinctArb: fc.Arbitrary<DistinctSettings> = fc.record({
  // A style field of few values (groups spread over every pool range), text, numeric-or-text,
  // multi-valued and rare fields, and one no product has.
  field: fc.oneof({ weight: 3, arbitrary: fc.constant('style') }, { weight: 4, arbitrary: fc.constantFrom('brand', 'color', 'size', 'stock', 'tags', 'rating', 'nope') }),
  facetCounts: fc.constantFrom<DistinctSettings['facetCounts']>(undefined, 'products', 'groups'),
}).map((d) => (d.facetCounts === undefined ? { field: d.field } : d));

async function checkDistinct(run: Run, products: Product[], request: SearchRequest, setting: DistinctSettings): Promise<void> {
  validateSearchRequest(request);
  const catalog = new Catalog();
  await catalog.upsert(products);
  const settings: WebsiteSettings = { distinct: setting };
  let plain;
  try {
    plain = referenceSearch(products, request);
  } catch (err) {
    if (!(err instanceof ReferenceBadRequest)) throw err;
    await expect(run(catalog, request, settings)).rejects.toSatisfy((e: unknown) => isAisleError(e) && e.code === 'SEARCH_BAD_REQUEST');
    return;
  }
  const expected = referenceDistinct(products, request, plain, setting);
  const payload = await run(catalog, request, settings);
  expect(payload.total_results).toBe(expected.total);
  expect(payload.aggregations ?? {}).toEqual(expected.aggregations);
  expect(payload.ranges ?? {}).toEqual(plain.ranges); // min/max stay over products
  expect(payload.range_buckets ?? {}).toEqual(expected.rangeBuckets);
  const size = request.size ?? 20;
  const page = expected.representatives.slice(request.start, request.start + size);
  const byRefId = new Map(products.map((p) => [p.refId, p]));
  const groups = payload.result.map((p) => expected.groupOf(byRefId.get(p.refId)!));
  expect(new Set(groups).size).toBe(groups.length); // one result per group
  for (const p of payload.result) expect(p._variants).toBe(expected.variants.get(p.refId));
  // With text, relevance breaks ties of the sort keys: any best-keyed member may represent its group.
  expectPageOrder(payload.result, page, request, plain.matches);
}

function contract(name: string, run: Run, numRuns: number): void {
  describe(name, () => {
    it('matches the reference on random catalogs, requests and group fields', async () => {
      await fc.assert(fc.asyncProperty(styledCatalogArb, requestArb, distinctArb, (products, request, setting) =>
        checkDistinct(run, products, request, setting)), { numRuns });
    });
  });
}

contract('distinct inline', (catalog, request, settings) => executeSearch(catalog, request, { settings }), 200);

const pool = new SearchPool({ workers: 2, threshold: 0 });
afterAll(() => pool.close());
contract('distinct on the pool (threshold 0)', (catalog, request, settings) => executeSearch(catalog, request, { settings, pool }), 120);

describe('distinct: pool and inline alike', () => {
  it('gives identical payloads, disjunctive facets and pins included', async () => {
    const requestWithDisjunctive = requestArb.chain((r) => fc.subarray(['brand', 'tags', 'price', 'color']).map((d) => (d.length > 0 ? { ...r, disjunctive_facets: d } : r)));
    await fc.assert(fc.asyncProperty(styledCatalogArb, requestWithDisjunctive, distinctArb, fc.boolean(), async (products, request, distinct, pin) => {
      const catalog = new Catalog();
      await catalog.upsert(products);
      const settings: WebsiteSettings = { distinct };
      if (pin && products.length > 3) settings.rules = [{ id: 'r', query: '', match: 'contains', pin: [{ refId: products[3].refId, position: 1 }] }];
      const inline = await executeSearch(catalog, request, { settings }).catch((e: unknown) => e);
      const pooled = await executeSearch(catalog, request, { settings, pool }).catch((e: unknown) => e);
      expect(pooled).toEqual(inline);
    }), { numRuns: 80 });
  });
});
