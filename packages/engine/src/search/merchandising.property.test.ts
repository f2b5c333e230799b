/**
 * Merchandising rules and disjunctive facets on random catalogs and requests:
 * - inline and pooled execution answer exactly alike (pins, hides, boosts, disjunctive facets);
 * - hiding is the same as excluding the refIds in the scope (totals, facets, ranges, pages);
 * - a disjunctive facet (and a disjunctive field's range buckets) equals the plain facet (buckets) of the
 *   request without the field's own condition.
 * The plain engine is itself checked against the reference implementation (execute-search.property.test.ts).
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { tokenize } from '../catalog/full-text/tokenizer.js';
import type { MerchandisingRule } from '../config.js';
import { isAisleError } from '../errors.js';
import type { Product, SearchPayload, SearchRequest } from '../types.js';
import { executeSearch } from './execute-search.js';
import { SearchPool } from './search-pool.js';
import { BRANDS, catalogArb, existsArb, requestArb } from './__tests__/random-catalog.js';
import { catalogOf } from './__tests__/catalog-of.js';

const pool = new SearchPool({ workers: 2, threshold: 0 });
afterAll(() => pool.close());

const refArb = fc.integer({ min: 0, max: 70 }).map((i) => `p${i}`);
const merchArb = fc.record({
  hide: fc.array(refArb, { maxLength: 6 }),
  pin: fc.array(fc.record({ refId: refArb, position: fc.integer({ min: 1, max: 15 }) }), { maxLength: 3 }),
  boost: fc.array(fc.record({
    scope: fc.oneof(
      fc.subarray(BRANDS).map((brand) => ({ brand })), fc.constant({ price: { max: 10 } }), fc.constant({ title: { min: 1 } }),
      existsArb.map((rating) => ({ rating })),
    ),
    weight: fc.constantFrom(0.2, 0.5, 2, 5),
  }), { maxLength: 2 }),
  disjunctive: fc.subarray(['brand', 'tags', 'color', 'nope', 'price', 'rating', 'title']),
});

async function outcome(run: () => Promise<SearchPayload>): Promise<SearchPayload | 'bad request'> {
  try {
    return await run();
  } catch (err) {
    if (isAisleError(err) && err.code === 'SEARCH_BAD_REQUEST') return 'bad request';
    throw err;
  }
}


describe('merchandising and disjunctive facets, property-tested', () => {
  it('answer exactly alike inline and on the pool', async () => {
    await fc.assert(fc.asyncProperty(catalogArb(70), requestArb, merchArb, async (products, request, m) => {
      const catalog = await catalogOf(products);
      const rules: MerchandisingRule[] = [{ id: 'r', query: '', match: 'contains', hide: m.hide, pin: m.pin, boost: m.boost as MerchandisingRule['boost'] }];
      const asked: SearchRequest = { ...request, disjunctive_facets: m.disjunctive, highlight: true };
      const inline = await outcome(() => executeSearch(catalog, asked, { settings: { rules } }));
      const pooled = await outcome(() => executeSearch(catalog, asked, { settings: { rules }, pool }));
      expect(pooled).toEqual(inline);
    }), { numRuns: 60 });
  });

  it('hide equals excluding the refIds in the scope; disjunctive facets equal plain facets without the own condition', async () => {
    await fc.assert(fc.asyncProperty(catalogArb(70), requestArb, merchArb, async (products, request, m) => {
      const catalog = await catalogOf(products);
      const rules: MerchandisingRule[] = [{ id: 'r', query: '', match: 'contains', hide: m.hide }];
      const excluded = (scope: SearchRequest['scope']) => ({ ...scope, refId: { not: m.hide } });
      const asked: SearchRequest = { ...request, disjunctive_facets: m.disjunctive };
      const got = await outcome(() => executeSearch(catalog, asked, { settings: { rules } }));
      const plain = await outcome(() => executeSearch(catalog, { ...request, scope: excluded(request.scope) }));
      if (plain === 'bad request' || got === 'bad request') {
        expect(got).toBe(plain);
        return;
      }
      expect(got.total_results).toBe(plain.total_results);
      expect(got.result.map((p) => p.refId)).toEqual(plain.result.map((p) => p.refId));
      expect(got.ranges).toEqual(plain.ranges);
      // A search whose words found nothing together (after the filters) is answered with fewer words
      // (suggestions.dropped_words): its disjunctive counts belong to the query it was answered with,
      // which the plain search without the field's condition may not need (docs/http-api.md).
      const words = tokenize(request.q).length;
      if ((got.suggestions.dropped_words?.length ?? 0) > 0 || (words > 1 && got.total_results === 0)) return;
      const fields = new Set([...(request.aggregations ?? []), ...m.disjunctive]);
      for (const field of fields) {
        const own = m.disjunctive.includes(field) && request.scope !== undefined && Object.hasOwn(request.scope, field);
        const scope = own ? Object.fromEntries(Object.entries(request.scope!).filter(([k]) => k !== field)) : request.scope;
        const reference = await executeSearch(catalog, { ...request, scope: excluded(scope), aggregations: [field], size: 0, start: 0 });
        expect(got.aggregations![field], field).toEqual(reference.aggregations![field]);
      }
      // Range buckets: those of a disjunctive field ignore its own condition, as its facet does.
      for (const [field, bounds] of Object.entries(request.range_buckets ?? {})) {
        const own = m.disjunctive.includes(field) && request.scope !== undefined && Object.hasOwn(request.scope, field);
        const scope = own ? Object.fromEntries(Object.entries(request.scope!).filter(([k]) => k !== field)) : request.scope;
        const reference = await executeSearch(catalog, { ...request, scope: excluded(scope), range_buckets: { [field]: bounds }, size: 0, start: 0 });
        expect(got.range_buckets![field], field).toEqual(reference.range_buckets![field]);
      }
    }), { numRuns: 120 });
  });

  it('counts the range buckets of a disjunctive field without its own condition, inline and on the pool alike', async () => {
    const priceScope = fc.record({ min: fc.integer({ min: -5, max: 30 }), max: fc.integer({ min: 5, max: 60 }) });
    await fc.assert(fc.asyncProperty(catalogArb(70), requestArb, priceScope, async (products, request, price) => {
      const catalog = await catalogOf(products);
      const buckets = { price: [0, 10, 12.5, 30] };
      const asked: SearchRequest = { ...request, scope: { ...request.scope, price }, disjunctive_facets: ['price'], range_buckets: buckets };
      const got = await outcome(() => executeSearch(catalog, asked));
      expect(await outcome(() => executeSearch(catalog, asked, { pool }))).toEqual(got);
      if (got === 'bad request') return;
      // With query words, a search whose words found nothing under the price condition is answered with
      // typo variants or fewer words, which the request without that condition may not need: the
      // buckets then belong to another query. Browsing has no such fallback.
      if (tokenize(request.q).length > 0) return;
      const others = Object.fromEntries(Object.entries(asked.scope!).filter(([k]) => k !== 'price'));
      const reference = await executeSearch(catalog, { ...request, scope: others, range_buckets: buckets, size: 0, start: 0 });
      expect(got.range_buckets!.price).toEqual(reference.range_buckets!.price);
    }), { numRuns: 80 });
  });
});
