/**
 * The website, catalog and shopper traffic of the checkpoint restart tests (shared with their child
 * process): generated, deterministic.
 * @module
 */
import { generateCatalog } from '../../demo/generate-catalog.js';
import { generateInteractions } from '../../demo/generate-interactions.js';
import type { Engine } from '../../engine-api.js';
import { METHODS } from '../methods.js';

/** The one website of the tests. */
export const checkpointTestSite = { websiteId: 'site-a', client: 'client-a', tokens: ['token-a'], hmacSecret: 'secret-a' };

/** Its catalog. */
export const checkpointTestProducts = generateCatalog({ count: 300, seed: 3 });

/** Views and purchases of 400 sessions over that catalog. */
export const checkpointTestTraffic = generateInteractions({ products: checkpointTestProducts, sessions: 400, seed: 5, now: Date.UTC(2026, 10, 1) });

/**
 * What every method answers on `websiteId` for a spread of products, carts and customers, without each
 * response's own queryId: two engines holding the same models give equal lists.
 */
export async function everyMethodAnswers(engine: Engine, websiteId = checkpointTestSite.websiteId): Promise<unknown[]> {
  const products = checkpointTestProducts;
  const out: unknown[] = [];
  const customers = checkpointTestTraffic.views.slice(0, 6).map((v) => v.customerId);
  for (const method of METHODS.map((m) => m.name)) {
    for (let k = 0; k < 6; k++) {
      const params = { productRef: products[k * 37]!.refId, items: [products[k * 11]!.refId, products[k * 13 + 1]!.refId], customerId: customers[k], count: 12 };
      const { queryId: _id, ...list } = await engine.recommend(websiteId, method, params);
      out.push(list);
    }
  }
  return out;
}
