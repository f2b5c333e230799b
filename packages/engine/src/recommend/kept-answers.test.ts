import { describe, expect, it } from 'vitest';
import type { WebsiteConfig } from '../config.js';
import type { Product } from '../types.js';
import { KeptAnswers, MAX_KEPT_ANSWERS, type AnswerBasis } from './kept-answers.js';
import { MapCatalog } from './map-catalog.js';
import { RecommendationModels } from './recommendation-models.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 10);
const W = 'site-a';
const website = (settings: WebsiteConfig['settings'] = {}): WebsiteConfig => ({ websiteId: W, client: 'c', tokens: ['t'], hmacSecret: 'top-secret', settings });
const products = (): Product[] => Array.from({ length: 12 }, (_, i) => ({ refId: `p${i + 1}`, title: `Product ${i + 1}`, brand: i % 2 ? 'Acme' : 'Zen', price: 10 + i }));

function setup(refreshMs = 0) {
  const clock = { now: T0 + DAY };
  const catalog = new MapCatalog(products());
  const models = new RecommendationModels({ website: website(), catalog, now: () => clock.now, tuning: { popularRefreshMs: refreshMs } });
  const view = (refId: string, n = 1) => {
    for (let k = 0; k < n; k++) models.applyView({ websiteId: W, customerId: `c-${refId}-${k}`, sessionId: `s-${refId}-${k}`, refId, eventTime: clock.now + k });
  };
  return { clock, catalog, models, view };
}

describe('kept answers', () => {
  it('answer the same request as a computation does, sharing lists no caller can change', () => {
    const { models, view } = setup();
    view('p3', 5);
    view('p7', 3);
    const first = models.recommend('PopularItems', { count: 2 });
    expect(() => first.payload.push('changed by the caller')).toThrow(TypeError);
    expect(() => { first.slots[0]!.refId = 'changed too'; }).toThrow(TypeError);
    expect(() => first.slots.pop()).toThrow(TypeError);
    // The answer object itself is each caller's own (the engine adds the list id to it).
    Object.assign(first, { queryId: 'q1' });
    const second = models.recommend('PopularItems', { count: 2 });
    expect(second.payload).toEqual(['p3', 'p7']);
    expect(second.slots.map((s) => s.refId)).toEqual(['p3', 'p7']);
    expect(second).not.toHaveProperty('queryId');
    const third = models.recommend('PopularItems', { count: 2 });
    expect(third).toEqual(second);
    expect(third).not.toBe(second);
    expect(third.payload).toBe(second.payload);
    expect(third.slots).toBe(first.slots);
  });

  it('are dropped by an event, a catalog change or new settings', () => {
    const { models, view, catalog } = setup();
    view('p3', 5);
    view('p7', 3);
    expect(models.recommend('PopularItems', { count: 2 }).payload).toEqual(['p3', 'p7']);
    view('p9', 8);
    expect(models.recommend('PopularItems', { count: 2 }).payload).toEqual(['p9', 'p3']);
    catalog.delete('p9');
    expect(models.recommend('PopularItems', { count: 2 }).payload).toEqual(['p3', 'p7']);
    models.setWebsite(website({ retailBoost: { collections: [{ campaignId: 'camp-1', products: ['p3'] }] } }));
    expect(models.recommend('PopularItems', { count: 2 }).slots[0]).toMatchObject({ refId: 'p3', retailBoost: { retailBoostCollectionCampaignId: 'camp-1' } });
  });

  it('follow the popularity ranking when its recomputation falls due with time, with no event in between', () => {
    const { models, view, clock } = setup(60_000);
    view('p3', 5);
    expect(models.recommend('PopularItems', { count: 1 }).payload).toEqual(['p3']);
    // Within the refresh interval the ranking is not recomputed: the answer stays the same…
    view('p5', 9);
    expect(models.recommend('PopularItems', { count: 1 }).payload).toEqual(['p3']);
    expect(models.recommend('PopularItems', { count: 1 }).payload).toEqual(['p3']);
    // …and once it is due, the next answer has the new ranking though nothing else happened.
    clock.now += 60_000;
    expect(models.recommend('PopularItems', { count: 1 }).payload).toEqual(['p5']);
  });

  it('are kept per request: method, parameters and cascade', () => {
    const { models, view } = setup();
    view('p3', 5);
    view('p7', 3);
    expect(models.recommend('PopularItems', { count: 1 }).payload).toEqual(['p3']);
    expect(models.recommend('PopularItems', { count: 2 }).payload).toEqual(['p3', 'p7']);
    expect(models.recommend('PopularItems', { count: 2, items: ['p3'] }).payload).toEqual(['p7']);
    expect(models.recommend('PopularItems', { count: 1 }, ['popularItems']).payload).toEqual(['p3']);
  });

  it('key a frozen parameters object once per method: each method answers its own, a bad one is refused every time', () => {
    const { models, view } = setup();
    view('p3', 5);
    view('p7', 3);
    const params = Object.freeze({ count: 2, productRef: 'p3' });
    const popular = models.recommend('PopularItems', params);
    expect(popular.payload).toEqual(['p7']);
    expect(models.recommend('PopularItems', params)).toEqual(popular);
    // The same object under another method: that method's request, not PopularItems' kept answer.
    const viewedTogether = models.recommend('ViewedTogether', params);
    expect(viewedTogether.recommenderId).not.toBe(popular.recommenderId);
    expect(viewedTogether).toEqual(models.recommend('ViewedTogether', { count: 2, productRef: 'p3' }));
    // Both methods' requests held for the one object: each still answers its own.
    expect(models.recommend('PopularItems', params)).toEqual(popular);
    expect(models.recommend('ViewedTogether', params)).toEqual(viewedTogether);
    const bad = Object.freeze({ count: 0 });
    expect(() => models.recommend('PopularItems', bad)).toThrow(/count/);
    expect(() => models.recommend('PopularItems', bad)).toThrow(/count/);
  });

  it('read a frozen parameters object whose cart list is not frozen anew: a library caller may change the cart', () => {
    const { models, view } = setup();
    view('p3', 5);
    view('p7', 3);
    view('p9', 1);
    // Object.freeze is shallow: the object cannot change, the list it holds can.
    const cart = ['p3'];
    const params = Object.freeze({ count: 2, items: cart });
    expect(models.recommend('PopularItems', params).payload).toEqual(['p7', 'p9']);
    cart[0] = 'p7';
    expect(models.recommend('PopularItems', params).payload).toEqual(['p3', 'p9']);
  });

  it('hold at most MAX_KEPT_ANSWERS and start again past it; a new basis drops them', () => {
    const kept = new KeptAnswers();
    const basis: AnswerBasis = { changes: 1, catalogVersion: 1, ranking: 1, attributes: undefined, visual: undefined };
    const answer = { type: 1, code: 0, payload: ['a'], slots: [{ refId: 'a', tacticLabel: 'Popular Items', tacticId: 'x' }], recommenderId: 'r' };
    for (let i = 0; i <= MAX_KEPT_ANSWERS; i++) kept.keep(`r${i}`, basis, answer);
    expect(kept.get('r0', basis)).toBeUndefined();
    expect(kept.get(`r${MAX_KEPT_ANSWERS}`, basis)).toEqual(answer);
    expect(kept.get(`r${MAX_KEPT_ANSWERS}`, { ...basis, changes: 2 })).toBeUndefined();
    expect(kept.get(`r${MAX_KEPT_ANSWERS}`, basis)).toBeUndefined();
  });
});

describe('kept answers through the engine', () => {
  it('follow a stock change, a view and a new product of the catalog between two same requests', async () => {
    const { createEngine } = await import('../engine.js');
    const site = { websiteId: 'kept', client: 'kept', tokens: ['kept-token'], hmacSecret: 'kept-secret' };
    const engine = await createEngine({ workers: 0, websites: [site] });
    try {
      await engine.replaceProducts('kept', products().map((p) => ({ ...p, availability: 5 })));
      let sessions = 0;
      const viewOf = (refId: string, n: number) => engine.recordViews('kept', {
        customerId: '00000000-0000-4000-8000-000000000001', sessionId: `00000000-0000-4000-8000-${String(++sessions).padStart(12, '0')}`,
        events: Array.from({ length: n }, (_, k) => ({ refId, currentUrl: `https://shop.example/${refId}`, eventTime: new Date(Date.now() - 60_000 + k).toISOString() })),
      });
      await viewOf('p3', 1);
      await viewOf('p7', 1);
      const popular = async () => (await engine.recommend('kept', 'PopularItems', { count: 2, filterOutOfStock: true })).payload;
      const first = await popular();
      expect(first).toHaveLength(2);
      expect(await popular()).toEqual(first);
      // Sold out: a value patch of the catalog takes it out of the next answer.
      await engine.patchProducts('kept', [{ refId: first[0]!, availability: 0 }]);
      expect(await popular()).not.toContain(first[0]);
      expect(await popular()).not.toContain(first[0]);
      // Back in stock, then viewed most: the next answer leads with it.
      await engine.patchProducts('kept', [{ refId: first[0]!, availability: 3 }]);
      await viewOf('p11', 1);
      expect(await popular()).toContain(first[0]);
    } finally {
      await engine.close();
    }
  });
});
