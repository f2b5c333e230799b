/**
 * `Engine.recommend` (the engine's recommendation look-up through its public API): cascades over the
 * co-occurrence, popularity and similarity models after replaying generated sessions.
 * @module
 */
import { createEngine, type RecommendParams } from '@aisle/engine';
import { generateInteractions } from '@aisle/engine/demo';
import { type MicroCase, type MicroContext, consume } from './context.js';

export const measures = 'recommend';

export async function cases(ctx: MicroContext): Promise<MicroCase[]> {
  const site = { websiteId: 'micro', client: 'micro', tokens: ['micro-token'], hmacSecret: 'micro-secret' };
  const engine = await createEngine({ workers: 0, websites: [site] });
  await engine.replaceProducts(site.websiteId, ctx.products);
  const sessions = Math.min(5000, Math.floor(ctx.products.length / 4));
  const { views, purchases } = generateInteractions({ products: ctx.products, sessions, seed: 5, now: Date.now() });
  for (const body of views) await engine.recordViews(site.websiteId, body);
  for (const body of purchases) await engine.recordPurchases(site.websiteId, body);
  const refs = ctx.products.slice(0, 500).map((p) => p.refId);
  const customers = views.slice(-200).map((v) => v.customerId);
  let i = 0;
  const next = <T>(list: T[]): T => list[i++ % list.length]!;
  const call = (method: string, params: () => RecommendParams) => async () => consume((await engine.recommend(site.websiteId, method, params())).payload);
  const label = `${ctx.products.length.toLocaleString('en-US')} products, ${sessions.toLocaleString('en-US')} sessions`;
  return [
    { name: `ViewedTogether (${label})`, fn: call('ViewedTogether', () => ({ productRef: next(refs) })) },
    { name: `BoughtTogether (${label})`, fn: call('BoughtTogether', () => ({ productRef: next(refs) })) },
    { name: `ProductDetail cascade, filterOutOfStock (${label})`, fn: call('ProductDetail', () => ({ productRef: next(refs), customerId: next(customers), filterOutOfStock: true })) },
    { name: `OnlyVisuallySimilar (${label})`, fn: call('OnlyVisuallySimilar', () => ({ productRef: next(refs) })) },
    { name: `PopularItems (${label})`, fn: call('PopularItems', () => ({})) },
  ];
}
