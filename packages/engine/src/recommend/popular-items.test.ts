/**
 * Popular Items lists are kept between requests without inputs (RecommendationModels.popularItems):
 * interleaving random traffic, catalog changes and requests, every answer equals that of models built
 * afresh from the same events (which keep nothing), with the ranking recomputed at every request.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { objectProductList } from '../catalog/columns/product-store.js';
import type { CatalogView, Product } from '../types.js';
import { RecommendationModels } from './recommendation-models.js';

const REFS = Array.from({ length: 12 }, (_, i) => `r${i}`);
const website = { websiteId: 'w', client: 'c', tokens: [], hmacSecret: 'k' };

/** A catalog whose live products and stock the test changes (each change a new version). */
function mutableCatalog(): { view: CatalogView; set(live: readonly string[], outOfStock: readonly string[]): void } {
  let live = new Set(REFS);
  let out = new Set<string>();
  const view = {
    version: 1,
    get liveCount() { return live.size; },
    has: (r: string) => live.has(r),
    getProduct: (r: string): Product | undefined => (live.has(r) ? { refId: r, title: `item ${r}` } : undefined),
    isInStock: (r: string) => live.has(r) && !out.has(r),
    liveProducts: () => objectProductList([...live].map((refId) => ({ refId, title: `item ${refId}` }))),
  };
  return { view, set(l, o) { live = new Set(l); out = new Set(o); view.version++; } };
}

type Step =
  | { kind: 'view' | 'purchase'; customer: string; refs: string[]; old: boolean }
  | { kind: 'catalog'; deleted: string[]; outOfStock: string[] }
  | { kind: 'ask'; count: number; filterOutOfStock: boolean };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  // `old`: before the popularity window (it changes the co-purchase overlaps, not the ranking).
  fc.record({ kind: fc.constantFrom('view' as const, 'purchase' as const), customer: fc.constantFrom('c1', 'c2', 'c3'), refs: fc.array(fc.constantFrom(...REFS), { minLength: 1, maxLength: 5 }), old: fc.boolean() }),
  fc.record({ kind: fc.constant('catalog' as const), deleted: fc.subarray(REFS, { maxLength: 5 }), outOfStock: fc.subarray(REFS, { maxLength: 5 }) }),
  fc.record({ kind: fc.constant('ask' as const), count: fc.integer({ min: 1, max: 12 }), filterOutOfStock: fc.boolean() }),
);

describe('Popular Items kept between requests', () => {
  it('answers as models that keep nothing', () => {
    fc.assert(fc.property(fc.array(stepArb, { maxLength: 50 }), (steps) => {
      const catalog = mutableCatalog();
      // popularRefreshMs 0: the ranking is recomputed at every request, so only the kept list can differ.
      const options = { website, catalog: catalog.view, now: () => 0, tuning: { popularRefreshMs: 0 } };
      const kept = new RecommendationModels(options);
      const fed: Step[] = [];
      const feed = (models: RecommendationModels, step: Step, n: number): void => {
        const time = Date.UTC(2026, 0, 1) + n * 60_000 - (step.kind !== 'catalog' && step.kind !== 'ask' && step.old ? 30 * 86_400_000 : 0);
        if (step.kind === 'view') for (const refId of step.refs) models.applyView({ websiteId: 'w', customerId: step.customer, sessionId: step.customer, refId, eventTime: time });
        // A customer per order: pairs within orders only (customer-level pairs blur every overlap).
        if (step.kind === 'purchase') models.applyPurchase({ websiteId: 'w', customerId: `${step.customer}-${n}`, sessionId: step.customer, orderId: `o${n}`, eventTime: time, items: step.refs.map((refId) => ({ refId, quantity: 1, price: 1 })) });
      };
      steps.forEach((step, n) => {
        if (step.kind === 'catalog') catalog.set(REFS.filter((r) => !step.deleted.includes(r)), step.outOfStock);
        else if (step.kind === 'ask') {
          const fresh = new RecommendationModels(options);
          fed.forEach((s, k) => feed(fresh, s, k));
          const params = { count: step.count, filterOutOfStock: step.filterOutOfStock };
          expect(kept.recommend('PopularItems', params)).toEqual(fresh.recommend('PopularItems', params));
        } else {
          feed(kept, step, fed.length);
          fed.push(step);
        }
      });
    }), { numRuns: 300 });
  });

  it('recomputes the list after a purchase outside the window, a catalog change or another count', () => {
    const catalog = mutableCatalog();
    const models = new RecommendationModels({ website, catalog: catalog.view, now: () => 0, tuning: { popularRefreshMs: 0 } });
    let n = 0;
    const buy = (refs: string[], daysAgo = 0): void => models.applyPurchase({
      websiteId: 'w', customerId: `c${n}`, sessionId: `s${n}`, orderId: `o${n++}`,
      eventTime: Date.UTC(2026, 0, 1) + n * 1000 - daysAgo * 86_400_000, items: refs.map((refId) => ({ refId, quantity: 1, price: 1 })),
    });
    const popular = (count: number): string[] => models.recommend('PopularItems', { count }).payload;
    buy(['r0']); buy(['r0']); buy(['r1']); buy(['r1']); buy(['r2']);
    expect(popular(3)).toEqual(['r0', 'r1', 'r2']);
    // Bought together with r0 a month ago: the ranking (a week) is unchanged, r1's overlap with r0 is not.
    for (let i = 0; i < 40; i++) buy(['r0', 'r1'], 30);
    expect(popular(3)).toEqual(['r0', 'r2', 'r1']);
    // Views: the ranking is recomputed (at the next request).
    // Two views of r5: its score (2/3) passes r1's penalised one.
    for (const visitor of ['v1', 'v2']) models.applyView({ websiteId: 'w', customerId: visitor, sessionId: visitor, refId: 'r5', eventTime: Date.UTC(2026, 0, 1) + n * 1000 });
    expect(popular(3)).toEqual(['r0', 'r2', 'r5']);
    // One view of r6 (1/2: below them), one place, then three again.
    models.applyView({ websiteId: 'w', customerId: 'v3', sessionId: 'v3', refId: 'r6', eventTime: Date.UTC(2026, 0, 1) + n * 1000 });
    expect(popular(1)).toEqual(['r0']);
    expect(popular(3)).toEqual(['r0', 'r2', 'r5']);
    // r0 gone: r1 no longer sits below a placed item.
    catalog.set(REFS.filter((r) => r !== 'r0'), []);
    expect(popular(3)).toEqual(['r1', 'r2', 'r5']);
  });
});
