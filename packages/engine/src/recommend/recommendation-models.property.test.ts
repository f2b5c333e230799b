import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { objectProductList } from '../catalog/columns/product-store.js';
import type { CatalogView, Product } from '../types.js';
import { METHODS } from './methods.js';
import { RecommendationModels } from './recommendation-models.js';

// Invariants of every method over random traffic, catalogs and parameters.
const REFS = Array.from({ length: 12 }, (_, i) => `r${i}`);

function catalogOf(live: Set<string>, outOfStock: Set<string>): CatalogView {
  const product = (refId: string): Product => ({
    refId, title: `item ${refId}`, search_category: Number(refId.slice(1)) % 2 ? 'odd' : 'even', availability: outOfStock.has(refId) ? 0 : 5,
    image_vector: [Number(refId.slice(1)) % 3, 1, Number(refId.slice(1)) % 5], style_id: `s${Number(refId.slice(1)) % 4}`,
  });
  return {
    version: 1, liveCount: live.size, has: (r) => live.has(r), getProduct: (r) => (live.has(r) ? product(r) : undefined),
    isInStock: (r) => live.has(r) && !outOfStock.has(r), liveProducts: () => objectProductList([...live].map(product)),
  };
}

const ref = fc.constantFrom(...REFS, 'ghost');
const event = fc.record({
  kind: fc.constantFrom('view', 'purchase'),
  customer: fc.constantFrom('c1', 'c2', 'c3'),
  session: fc.constantFrom('s1', 's2', 's3', 's4'),
  refs: fc.array(ref, { minLength: 1, maxLength: 5 }),
  day: fc.integer({ min: 0, max: 20 }),
});

describe('RecommendationModels invariants', () => {
  it('never returns inputs, cart items, deleted, unknown or (when asked) out-of-stock products; respects count; slots align', () => {
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 30 }),
        fc.subarray(REFS),
        fc.subarray(REFS),
        fc.record({
          method: fc.constantFrom(...METHODS.map((m) => m.name)),
          productRef: ref,
          items: fc.array(ref, { minLength: 1, maxLength: 3 }),
          customerId: fc.constantFrom('c1', 'c2', 'c9'),
          filterOutOfStock: fc.boolean(),
          count: fc.integer({ min: 1, max: 6 }),
        }),
        fc.boolean(),
        (events, deleted, outOfStock, q, withAds) => {
          const live = new Set(REFS.filter((r) => !deleted.includes(r)));
          const catalog = catalogOf(live, new Set(outOfStock));
          const settings = withAds ? { retailMedia: { adSets: [{ adSetId: 'a1', version: 1, products: ['r3', 'r4', 'ghost'], costPerClick: 0.1 }] } } : {};
          const models = new RecommendationModels({ website: { websiteId: 'w', client: 'c', tokens: [], hmacSecret: 'k', settings }, catalog, now: () => 0, tuning: { popularRefreshMs: 0 } });
          events.forEach((e, n) => {
            const time = Date.UTC(2026, 0, 1) + e.day * 86_400_000 + n;
            if (e.kind === 'view') for (const r of e.refs) models.applyView({ websiteId: 'w', customerId: e.customer, sessionId: `${e.customer}-${e.session}`, refId: r, eventTime: time });
            else models.applyPurchase({ websiteId: 'w', customerId: e.customer, sessionId: e.session, orderId: `o${n}`, eventTime: time, items: e.refs.map((refId) => ({ refId, quantity: 1, price: 1 })) });
          });
          const r = models.recommend(q.method, { productRef: q.productRef, items: q.items, customerId: q.customerId, filterOutOfStock: q.filterOutOfStock, count: q.count });
          expect(r.payload.length).toBeLessThanOrEqual(q.count);
          expect(new Set(r.payload).size).toBe(r.payload.length);
          expect(r.slots.map((s) => s.refId)).toEqual(r.payload);
          for (const p of r.payload) {
            expect(live.has(p)).toBe(true);
            expect(p).not.toBe(q.productRef);
            expect(q.items).not.toContain(p);
            if (q.filterOutOfStock) expect(outOfStock).not.toContain(p);
          }
          expect(r.slots.filter((s) => s.retailMedia).length).toBeLessThanOrEqual(1);
          const b = models.bundles({ product_ref_ids: q.items, setCount: 2, filter_out_of_stock: q.filterOutOfStock });
          for (const bundle of b.payload) {
            expect(new Set(bundle).size).toBe(bundle.length);
            for (const p of bundle) expect(live.has(p)).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
