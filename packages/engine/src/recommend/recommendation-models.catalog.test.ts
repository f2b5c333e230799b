import { describe, expect, it } from 'vitest';
import { Catalog } from '../catalog/catalog.js';
import type { Product } from '../types.js';
import { RecommendationModels } from './recommendation-models.js';

// The models over the real catalog (the other tests use a Map-based CatalogView double).
const T0 = Date.UTC(2026, 0, 10);
const website = { websiteId: 'site-a', client: 'c', tokens: ['t'], hmacSecret: 's' };

function products(): Product[] {
  return [
    { refId: 'p1', title: 'Mug one', search_category: 'Mugs' },
    { refId: 'p2', title: 'Mug two', search_category: 'Mugs' },
    { refId: 'p3', title: 'Plate', search_category: 'Plates' },
    { refId: 'v1', title: 'red shirt', image_vector: [1, 0, 0], style_id: 'S1' },
    { refId: 'v2', title: 'pink shirt', image_vector: [0.9, 0.1, 0], style_id: 'S2' },
    { refId: 'v3', title: 'blue shirt', image_vector: [0, 1, 0], style_id: 'S3' },
  ];
}

let order = 0;
function buy(models: RecommendationModels, refs: string[]): void {
  models.applyPurchase({ websiteId: 'site-a', customerId: `c${order}`, sessionId: 's', orderId: `o${++order}`, eventTime: T0, items: refs.map((refId) => ({ refId, quantity: 1, price: 1 })) });
}
const rec = (m: RecommendationModels, method: string, params = {}) => m.recommend(method, params);

describe('RecommendationModels over the real Catalog', () => {
  it('works over the real Catalog, deleted products included', async () => {
    const catalog = new Catalog();
    await catalog.upsert(products());
    const models = new RecommendationModels({ website, catalog, now: () => T0, tuning: { popularRefreshMs: 0 } });
    buy(models, ['p1', 'p2']);
    buy(models, ['p1', 'p3']);
    expect(new Set(rec(models, 'BoughtTogether', { productRef: 'p1', count: 2 }).payload)).toEqual(new Set(['p2', 'p3']));
    catalog.delete(['p2']);
    expect(rec(models, 'BoughtTogether', { productRef: 'p1', count: 10 }).payload).not.toContain('p2');
    expect(rec(models, 'OnlyVisuallySimilar', { productRef: 'v1' }).payload).toEqual(['v2', 'v3']);
  });
});
